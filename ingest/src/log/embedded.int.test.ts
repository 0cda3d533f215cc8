import { randomUUID } from "node:crypto";
import { openDb } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../../../test/harness/storage.ts";
import { createEmbeddedLog } from "./embedded.ts";
import { eventLogMigrations } from "./event-log.migration.ts";
import type { EventLog, LogRecord, Subscription } from "./event-log.ts";
import { pageLoad } from "./logged-event.fixture.ts";

/** What the embedded log does in one process (PGlite) beyond the port's contract: its batching. */
describe("embedded log in one process: a subscriber's batches", () => {
  let storage: TestStorage;
  let opened: ReturnType<typeof openDb>;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    storage = await createTestStorage("pglite");
    opened = openDb({ databaseUrl: null, dataDir: storage.env.FEEDLAB_DATA_DIR ?? "" });
    for (const m of eventLogMigrations) await m.up(opened.db);
  });
  afterAll(async () => {
    for (const s of subscriptions) await s.stop();
    await opened?.close();
    await storage?.cleanup();
  });

  /** Batches delivered to a new subscriber from the log's head on. */
  async function follow(log: EventLog, maxBatch = 2000) {
    const batches: { at: number; records: readonly LogRecord[] }[] = [];
    const head = (await log.position()).get(0) ?? -1;
    subscriptions.push(
      log.subscribe({
        consumer: `linger-${randomUUID()}`,
        maxBatch,
        checkpoint: async () => head,
        onBatch: async (records) => {
          batches.push({ at: performance.now(), records });
        },
      }),
    );
    return batches;
  }

  async function until(condition: () => boolean, ms = 10_000) {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("holds a batch smaller than the linger's count back, and delivers it whole once the count is reached", async () => {
    const log = createEmbeddedLog({ db: opened.db, multiProcess: false, linger: { ms: 60_000, records: 3 } });
    const batches = await follow(log);
    // A subscriber of batches of one is never held back: once it has the next record, the one
    // under test has been woken by the same append and has decided what to do with it.
    const control = await follow(log, 1);
    const seenByControl = () => control.flatMap((b) => b.records).length;
    // Once these arrived, the subscriber has caught up with the table and follows the appends.
    await log.append([pageLoad(), pageLoad(), pageLoad()]);
    await until(() => batches.flatMap((b) => b.records).length === 3 && seenByControl() === 3);
    const caughtUp = batches.length;
    await log.append([pageLoad()]);
    await until(() => seenByControl() === 4);
    await new Promise((r) => setImmediate(r));
    expect(batches.length).toBe(caughtUp);
    await log.append([pageLoad(), pageLoad()]);
    await until(() => batches.length > caughtUp);
    expect(batches.slice(caughtUp).map((b) => b.records.length)).toEqual([3]);
  });

  it("delivers a small batch once the linger's time has passed since its first record arrived", async () => {
    const log = createEmbeddedLog({ db: opened.db, multiProcess: false, linger: { ms: 400, records: 1000 } });
    const batches = await follow(log);
    await log.append([pageLoad()]);
    await until(() => batches.length === 1);
    const appended = performance.now();
    await log.append([pageLoad()]);
    await until(() => batches.length === 2);
    expect(batches[1]?.records).toHaveLength(1);
    expect((batches[1]?.at ?? 0) - appended).toBeGreaterThanOrEqual(390);
  });
});
