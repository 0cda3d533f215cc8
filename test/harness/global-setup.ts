import type { TestProject } from "vitest/node";
import { startKafka } from "./kafka.ts";
import { checkPostgres, startPostgres } from "./postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * Admin URL of the PostgreSQL server for this run: DATABASE_URL when set, else a throwaway
     * cluster. Tests never use it directly; `createTestDatabase()` makes a database per file on it.
     */
    postgresUrl: string;
    /**
     * KAFKA_BROKERS of this run: the environment's when set, else a broker started for the run by
     * `npm run kafka`. Each test uses its own topic (and so its own consumer groups).
     */
    kafkaBrokers: string;
  }
}

/**
 * Provides `postgresUrl` to the int and e2e projects. DATABASE_URL names an existing server the run
 * may create and drop `*test*` databases on; without it a cluster is started from the machine's
 * PostgreSQL binaries and torn down when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== "") {
    await checkPostgres(external);
    project.provide("postgresUrl", external);
  } else {
    const server = await startPostgres();
    project.provide("postgresUrl", server.url);
    stops.push(() => server.stop());
  }

  const brokers = process.env.KAFKA_BROKERS;
  if (brokers !== undefined && brokers !== "") project.provide("kafkaBrokers", brokers);
  else {
    const broker = await startKafka();
    project.provide("kafkaBrokers", broker.brokers);
    stops.push(() => broker.stop());
  }
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
