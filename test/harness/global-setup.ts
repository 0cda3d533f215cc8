import type { TestProject } from "vitest/node";
import { startKafka } from "./kafka.ts";
import { checkPostgres, startPostgres } from "./postgres.ts";
import { makeMigratedTemplates } from "./templates.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * Admin URL of the PostgreSQL server for this run: DATABASE_URL when set, else a throwaway
     * cluster. Tests never use it directly; `createTestDatabase()` makes a database per file on it.
     */
    postgresUrl: string;
    /**
     * KAFKA_BROKERS of this run: the environment's when set, else a broker started for the run by
     * `npm run kafka` (none in the browser lane: empty there). Each test uses its own topic (and so its
     * own consumer groups).
     */
    kafkaBrokers: string;
    /** A folder whose `pgdata` is a migrated embedded database, copied by `createTestStorage`. */
    pgliteTemplate: string;
    /** A migrated database on `postgresUrl`'s server, the template of `createTestDatabase`'s. */
    postgresTemplate: string;
  }
}

/**
 * Provides `postgresUrl`, the migrated templates and `kafkaBrokers` to the int and e2e projects.
 * DATABASE_URL names an existing server the run may create and drop `*test*` databases on; without it
 * a cluster is started from the machine's PostgreSQL binaries and torn down when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  const external = process.env.DATABASE_URL;
  let postgresUrl: string;
  if (external !== undefined && external !== "") {
    await checkPostgres(external);
    postgresUrl = external;
  } else {
    const server = await startPostgres();
    postgresUrl = server.url;
    stops.push(() => server.stop());
  }
  project.provide("postgresUrl", postgresUrl);
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };

  // The templates' migrations and the broker's start (a JVM) overlap: one waits on the other's disk.
  // A project whose config provides `kafkaBrokers` itself (the browser lane: "" for none) starts no broker.
  const brokers = process.env.KAFKA_BROKERS;
  const started = await Promise.allSettled([
    makeMigratedTemplates(postgresUrl).then((templates) => {
      project.provide("pgliteTemplate", templates.pgliteDir);
      project.provide("postgresTemplate", templates.postgresName);
      stops.push(() => templates.remove());
    }),
    brokers !== undefined && brokers !== ""
      ? project.provide("kafkaBrokers", brokers)
      : project.config.provide?.kafkaBrokers !== undefined
        ? undefined
        : startKafka().then((broker) => {
            project.provide("kafkaBrokers", broker.brokers);
            stops.push(() => broker.stop());
          }),
  ]);
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  return stopAll;
}
