// A fresh database (and event log) per test file, for every workspace's integration tests: it opens
// nothing of the api, so a test of sql, ingest or the projector reaches the database without it.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { createTestDatabase, type TestDatabase } from "./database.ts";

/** The two databases every integration suite runs against: embedded PGlite and real PostgreSQL. */
export const BACKENDS = ["pglite", "postgres"] as const;
/**
 * The event pipeline's suites also run in the scale-out mode: PostgreSQL with the event log on
 * Kafka (a topic and consumer groups of their own per app).
 */
export const EVENT_BACKENDS = [...BACKENDS, "kafka"] as const;
export type Backend = (typeof EVENT_BACKENDS)[number];

/** A fresh database of a backend, and the environment that points the app at it. */
export interface TestStorage {
  readonly env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** The run's brokers; the browser lane has none (its vitest config provides ""): its files run on the others. */
function brokersOfRun(): string {
  const brokers = inject("kafkaBrokers");
  if (brokers === "")
    throw new Error(
      "the browser lane (project e2e) starts no Kafka broker: list the file in BESIDE_E2E_FILES",
    );
  return brokers;
}

/**
 * A new database of `backend`: empty, or `migrated` (a copy of the run's migrated template: what an
 * app's first start leaves, made once per run by the global setup instead of once per app).
 */
export async function createTestStorage(
  backend: Backend,
  options: { migrated?: boolean } = {},
): Promise<TestStorage> {
  if (backend === "postgres" || backend === "kafka") {
    const db: TestDatabase = await createTestDatabase("feedlab_test", options);
    const kafka: Record<string, string> =
      backend === "kafka"
        ? {
            KAFKA_BROKERS: brokersOfRun(),
            FEEDLAB_KAFKA_TOPIC: `feedlab.events.${db.name}`,
            FEEDLAB_KAFKA_PARTITIONS: "3",
          }
        : {};
    return { env: { DATABASE_URL: db.url, ...kafka }, cleanup: () => db.drop() };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-test-"));
  if (options.migrated) {
    cpSync(path.join(inject("pgliteTemplate"), "pgdata"), path.join(dir, "pgdata"), { recursive: true });
  }
  return {
    env: { FEEDLAB_DATA_DIR: dir },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
