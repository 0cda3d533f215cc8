import { randomUUID } from "node:crypto";
import { openDb } from "@feedlab/sql";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestStorage, type TestStorage } from "../../../../test/harness/storage.ts";
import { createKafkaLog } from "../../index.ts";
import { eventLogMigrations } from "../event-log.migration.ts";
import type { EventLog } from "../event-log.ts";
import { pageLoad } from "../logged-event.fixture.ts";
import { KAFKA_CLIENTS } from "./client/port.ts";
import { CONSUMER_RESTART_MS } from "./subscribe.ts";

/**
 * A subscription's consumer on a real broker, crashed in the middle of a batch by an error the client
 * does not retry itself (kafkajs disconnects the consumer and leaves it so; the @platformatic/kafka
 * port ends the member on any failed batch): subscribe.ts starts it again, and it resumes from the
 * offsets committed after the last applied chunk. (That a failed batch comes again is the port's
 * contract: event-log.contract.int.test.ts.)
 */
describe.each(KAFKA_CLIENTS)("a Kafka subscription whose consumer crashes mid-batch (%s)", (client) => {
  let storage: TestStorage;
  let closeDb: () => Promise<void>;
  let log: EventLog;

  beforeAll(async () => {
    // The log keeps the participants' keys in a database.
    storage = await createTestStorage("pglite");
    const opened = openDb({ databaseUrl: null, dataDir: storage.env.FEEDLAB_DATA_DIR ?? "" });
    closeDb = opened.close;
    for (const m of eventLogMigrations) await m.up(opened.db);
    log = await createKafkaLog({
      brokers: inject("kafkaBrokers").split(","),
      topic: `feedlab.crash.${randomUUID()}`,
      partitions: 1,
      clientId: "crash-test",
      client,
      logger: pino({ level: "silent" }),
      db: opened.db,
    });
  });
  afterAll(async () => {
    await log?.close();
    await closeDb?.();
    await storage?.cleanup();
  });

  it("starts the consumer again and delivers the failed chunk and the rest, losing no record", async () => {
    const session = randomUUID();
    const { position } = await log.append(Array.from({ length: 6 }, () => pageLoad(session)));
    const last = position.get(0) as number;
    const offsets = Array.from({ length: 6 }, (_, i) => last - 5 + i);
    const failing = offsets[2] as number;
    const crash = Object.assign(new Error("the read model refused the batch"), { retriable: false });

    const deliveries: { at: number; offsets: number[] }[] = [];
    const errors: unknown[] = [];
    let crashedAt = 0;
    const applied = new Set<number>();
    await new Promise<void>((resolve) => {
      const sub = log.subscribe({
        consumer: `crash-${randomUUID()}`,
        checkpoint: async () => -1,
        // Chunks of two: the first is applied (and its offset resolved) before the second fails.
        maxBatch: 2,
        onError: (err) => errors.push(err),
        onBatch: async (records) => {
          const got = records.map((r) => r.offset);
          deliveries.push({ at: performance.now(), offsets: got });
          if (got.includes(failing) && crashedAt === 0) {
            crashedAt = performance.now();
            throw crash;
          }
          for (const o of got) applied.add(o);
          if (offsets.every((o) => applied.has(o))) void sub.stop().then(resolve);
        },
      });
    });

    // The crash was reported, and nothing was lost.
    expect(errors).toContain(crash);
    expect(offsets.filter((o) => !applied.has(o))).toEqual([]);
    // The chunk before the crash was applied first; the failed one came again, whole.
    const failedAt = deliveries.findIndex((d) => d.offsets.includes(failing));
    expect(deliveries.slice(0, failedAt).flatMap((d) => d.offsets)).toEqual(offsets.slice(0, 2));
    const again = deliveries.slice(failedAt + 1);
    expect(again.flatMap((d) => d.offsets)).toEqual(expect.arrayContaining(offsets.slice(2)));
    // Started again by subscribe.ts (kafkajs would have retried within its first retry's 200 ms).
    expect((again[0]?.at ?? 0) - crashedAt).toBeGreaterThanOrEqual(CONSUMER_RESTART_MS);
  }, 60_000);
});

/**
 * The projectors switched from one client to the other (docs/events.md "The client"): stopped, then
 * started with the other one, they resume after the group's committed offsets, whichever client
 * committed them.
 */
describe("a consumer group started again with the other Kafka client", () => {
  let storage: TestStorage;
  let closeDb: () => Promise<void>;
  const logs: EventLog[] = [];
  const topic = `feedlab.switch.${randomUUID()}`;

  beforeAll(async () => {
    storage = await createTestStorage("pglite");
    const opened = openDb({ databaseUrl: null, dataDir: storage.env.FEEDLAB_DATA_DIR ?? "" });
    closeDb = opened.close;
    for (const m of eventLogMigrations) await m.up(opened.db);
    for (const client of KAFKA_CLIENTS)
      logs.push(
        await createKafkaLog({
          brokers: inject("kafkaBrokers").split(","),
          topic,
          partitions: 2,
          clientId: `switch-${client}`,
          client,
          logger: pino({ level: "silent" }),
          db: opened.db,
        }),
      );
  });
  afterAll(async () => {
    for (const log of logs) await log.close();
    await closeDb?.();
    await storage?.cleanup();
  });

  /** Subscribes until `wanted` event ids are delivered; the ids delivered. */
  const consume = (log: EventLog, consumer: string, wanted: ReadonlySet<string>) =>
    new Promise<string[]>((resolve) => {
      const seen: string[] = [];
      const sub = log.subscribe({
        consumer,
        checkpoint: async () => -1,
        maxBatch: 3,
        onBatch: async (records) => {
          for (const r of records) if (r.event) seen.push(r.event.event_id);
          if ([...wanted].every((id) => seen.includes(id))) void sub.stop().then(() => resolve(seen));
        },
      });
    });

  it.each(KAFKA_CLIENTS.map((first, i) => [first, KAFKA_CLIENTS[1 - i]] as const))(
    "resumes after what %s committed when started with %s, delivering nothing twice",
    async (first, second) => {
      const consumer = `switch-${first}-${randomUUID()}`;
      const logOf = (c: string) =>
        logs[KAFKA_CLIENTS.indexOf(c as (typeof KAFKA_CLIENTS)[number])] as EventLog;
      const before = Array.from({ length: 6 }, () => pageLoad(randomUUID()));
      await logOf(first).append(before);
      const firstRun = await consume(logOf(first), consumer, new Set(before.map((e) => e.event_id)));
      expect(firstRun).toEqual(expect.arrayContaining(before.map((e) => e.event_id)));

      const after = Array.from({ length: 4 }, () => pageLoad(randomUUID()));
      await logOf(first).append(after);
      const secondRun = await consume(
        logOf(second as string),
        consumer,
        new Set(after.map((e) => e.event_id)),
      );
      expect(secondRun.sort()).toEqual(after.map((e) => e.event_id).sort());
    },
    60_000,
  );
});
