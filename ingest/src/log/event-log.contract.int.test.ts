import { randomUUID } from "node:crypto";
import { forgetWriterSchema, type LoggedEvent } from "@feedlab/schemas";
import { openDb } from "@feedlab/sql";
import type { Knex } from "knex";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  NEXT_EVENT_TYPE,
  NEXT_FINGERPRINT,
  produceRaw,
  publishNextSchema,
  writtenByNextRelease,
} from "../../../test/harness/next-release.ts";
import { createTestStorage, type TestStorage } from "../../../test/harness/storage.ts";
import { createKafkaLog } from "../index.ts";
import { createEmbeddedLog } from "./embedded.ts";
import { eventLogMigrations } from "./event-log.migration.ts";
import {
  covers,
  decodePosition,
  type EventLog,
  encodePosition,
  eventOf,
  type LogRecord,
} from "./event-log.ts";
import { KAFKA_CLIENTS } from "./kafka/client/port.ts";
import { pageLoad } from "./logged-event.fixture.ts";

/**
 * The event-log port's contract, run against both adapters: the embedded log (on PGlite, and on
 * PostgreSQL where several processes may append) and Kafka. The projector, replay and read-your-writes
 * rely on exactly these properties.
 */
const ADAPTERS = [
  "embedded on pglite",
  "embedded on postgres",
  ...KAFKA_CLIENTS.map((client) => `kafka on ${client}` as const),
] as const;

const idsOf = (records: readonly LogRecord[]) => records.map((r) => eventOf(r).event_id);

/** Every record of every partition up to the head, in offset order per partition. */
async function readAll(log: EventLog): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (const [partition, head] of await log.position()) {
    let after = -1;
    while (after < head) {
      const batch = await log.read(partition, after, 1000);
      const last = batch[batch.length - 1];
      if (!last) break;
      out.push(...batch);
      after = last.offset;
    }
  }
  return out;
}

describe.each(ADAPTERS)("event log contract (%s)", (adapter) => {
  const kafka = KAFKA_CLIENTS.find((c) => adapter === `kafka on ${c}`);
  let storage: TestStorage | null = null;
  let closeDb: (() => Promise<void>) | null = null;
  let db: Knex;
  let log: EventLog;
  let kafkaTopic = "";

  beforeAll(async () => {
    // The log's own tables (the embedded log; on Kafka, the participants' keys) live in a database.
    storage = await createTestStorage(adapter === "embedded on postgres" ? "postgres" : "pglite");
    const opened = openDb({
      databaseUrl: storage.env.DATABASE_URL ?? null,
      dataDir: storage.env.FEEDLAB_DATA_DIR ?? "",
    });
    closeDb = opened.close;
    db = opened.db;
    for (const m of eventLogMigrations) await m.up(opened.db);
    if (kafka) {
      kafkaTopic = `feedlab.contract.${randomUUID()}`;
      log = await createKafkaLog({
        brokers: inject("kafkaBrokers").split(","),
        topic: kafkaTopic,
        partitions: 3,
        clientId: "contract-test",
        client: kafka,
        logger: pino({ level: "silent" }),
        db,
      });
      return;
    }
    log = createEmbeddedLog({ db: opened.db, multiProcess: adapter === "embedded on postgres", pollMs: 50 });
  });
  afterAll(async () => {
    await log?.close();
    await closeDb?.();
    await storage?.cleanup();
    // The next release's schema leaves with this file: later files in this worker have not read it.
    forgetWriterSchema(NEXT_FINGERPRINT);
  });

  it("keeps a session's records in append order, across appends and beside other sessions", async () => {
    const session = randomUUID();
    const mine = [pageLoad(session), pageLoad(session), pageLoad(session), pageLoad(session)];
    await log.append([mine[0] as LoggedEvent, pageLoad(randomUUID())]);
    await log.append([mine[1] as LoggedEvent, mine[2] as LoggedEvent]);
    await log.append([pageLoad(randomUUID()), mine[3] as LoggedEvent]);
    const wanted = new Set(mine.map((e) => e.event_id));
    const found = (await readAll(log)).filter((r) => wanted.has(eventOf(r).event_id));
    expect(new Set(found.map((r) => r.partition)).size).toBe(1);
    expect(idsOf(found)).toEqual(mine.map((e) => e.event_id));
  });

  it("answers an append with a position that the head covers, and that survives its token", async () => {
    const appended = await log.append([
      pageLoad(randomUUID()),
      pageLoad(randomUUID()),
      pageLoad(randomUUID()),
    ]);
    expect(appended.appended).toBe(3);
    expect(appended.position.size).toBeGreaterThan(0);
    expect(covers(await log.position(), appended.position)).toBe(true);
    expect(decodePosition(encodePosition(appended.position))).toEqual(appended.position);
  });

  it("makes an acknowledged append readable at once at the position it answered (read-your-writes)", async () => {
    const e = pageLoad(randomUUID());
    const { position } = await log.append([e]);
    const [[partition, offset]] = [...position] as [[number, number]];
    const [record] = await log.read(partition, offset - 1, 1);
    expect(record && eventOf(record).event_id).toBe(e.event_id);
  });

  it("delivers a batch again when the subscriber failed to apply it, from where it stood", async () => {
    const session = randomUUID();
    const { position } = await log.append([pageLoad(session), pageLoad(session)]);
    const [[partition, last]] = [...position] as [[number, number]];
    const deliveries: number[][] = [];
    let failures = 0;
    const applied = new Promise<void>((resolve) => {
      const sub = log.subscribe({
        consumer: `contract-${randomUUID()}`,
        checkpoint: async () => -1,
        maxBatch: 1000,
        onBatch: async (records) => {
          const mine = records.filter(
            (r) => r.partition === partition && r.offset > last - 2 && r.offset <= last,
          );
          if (mine.length === 0) return;
          deliveries.push(mine.map((r) => r.offset));
          if (failures++ === 0) throw new Error("the database is down");
          if (mine.some((r) => r.offset === last)) void sub.stop().then(resolve);
        },
      });
    });
    await applied;
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    // Everything of the failed delivery comes again (a later delivery may carry more besides).
    expect(deliveries[1]).toEqual(expect.arrayContaining(deliveries[0] ?? [-1]));
    expect(deliveries.at(-1)).toContain(last);
  }, 60_000);

  it("erases a participant: no reader returns their records, an append of theirs afterwards stores nothing, others stay", async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const [aliceSession, bobSession] = [randomUUID(), randomUUID()];
    const hers = [
      pageLoad(aliceSession, alice),
      pageLoad(aliceSession, alice),
      pageLoad(aliceSession, alice),
    ];
    const his = [pageLoad(bobSession, bob), pageLoad(bobSession, bob)];
    await log.append([...hers, ...his]);
    const erasure = await db.transaction((trx) =>
      log.erase({ userIds: [alice], sessionIds: [aliceSession] }, trx),
    );
    await erasure.afterCommit();
    if (kafka) expect(erasure).toMatchObject({ records: null, keys: 1 });
    else expect(erasure).toMatchObject({ records: 3, keys: 0 });

    const all = await readAll(log);
    const readable = all.filter((r) => !r.erased).map((r) => eventOf(r));
    expect(readable.filter((e) => e.user_id === alice)).toEqual([]);
    expect(readable.filter((e) => e.user_id === bob).map((e) => e.event_id)).toEqual(
      his.map((e) => e.event_id),
    );
    // Kafka keeps the bytes, unreadable; the embedded log deleted them.
    expect(all.filter((r) => r.erased).length).toBe(kafka ? 3 : 0);

    const late = await log.append([pageLoad(aliceSession, alice), pageLoad(bobSession, bob)]);
    expect(late.appended).toBe(1);
    const after = (await readAll(log)).filter((r) => !r.erased).map((r) => eventOf(r));
    expect(after.filter((e) => e.user_id === alice)).toEqual([]);
    expect(after.filter((e) => e.user_id === bob)).toHaveLength(3);
  });

  it("stores a retried event once and answers the retry with the first copy's position", async () => {
    const e = pageLoad(randomUUID());
    const first = await log.append([e]);
    const again = await log.append([e, pageLoad(randomUUID())]);
    expect(first.appended).toBe(1);
    expect(again.appended).toBe(1);
    const [[partition, offset]] = [...first.position] as [[number, number]];
    expect(again.position.get(partition)).toBeGreaterThanOrEqual(offset);
    const copies = (await readAll(log)).filter((r) => !r.erased && eventOf(r).event_id === e.event_id);
    expect(copies).toHaveLength(1);
  });

  it("holds every partition from its first offset", async () => {
    const first = await log.firstOffsets();
    expect([...first.values()].every((o) => o === 0)).toBe(true);
    expect(first.size).toBe(kafka ? 3 : 1);
  });

  it("scans the records after a position up to a limit, then follows new ones until stopped", async () => {
    const session = randomUUID();
    const before = await log.append([pageLoad(session), pageLoad(session), pageLoad(session)]);
    const [[partition, last]] = [...before.position] as [[number, number]];
    const seen: string[] = [];
    await log.scan({
      after: new Map([[partition, last - 2]]),
      until: new Map([[partition, last]]),
      maxBatch: 1,
      onBatch: async (records) => {
        seen.push(...records.map((r) => `${r.partition}:${r.offset}`));
      },
    }).done;
    expect(seen).toEqual([`${partition}:${last - 1}`, `${partition}:${last}`]);

    const followed: string[] = [];
    const later = pageLoad(session);
    let arrived: () => void = () => {};
    const got = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const follow = log.scan({
      after: await log.position(),
      maxBatch: 100,
      onBatch: async (records) => {
        followed.push(...records.map((r) => eventOf(r).event_id));
        if (followed.includes(later.event_id)) arrived();
      },
    });
    // A follower on Kafka joins before it reads: append until it has seen the record.
    await log.append([later]);
    await got;
    await follow.stop();
    await follow.done;
    expect(followed).toEqual([later.event_id]);
  }, 60_000);

  it("reads a newer release's record with the schema that writer published: its added field skipped, its new event type carried", async () => {
    // Unknown to this process (forgotten if another adapter's run of this test looked it up) until
    // the log's schema store gives it.
    forgetWriterSchema(NEXT_FINGERPRINT);
    const session = randomUUID();
    const e = { ...pageLoad(session), event_type: NEXT_EVENT_TYPE };
    const value = writtenByNextRelease(e);
    if (kafka) {
      const brokers = inject("kafkaBrokers").split(",");
      await publishNextSchema({ brokers, topic: kafkaTopic });
      await produceRaw(brokers, kafkaTopic, [{ key: session, value }]);
    } else {
      await publishNextSchema({ db });
      await db("event_log").insert({ event_id: e.event_id, session_id: session, record: value });
    }
    const found = (await readAll(log)).filter((r) => !r.erased).map((r) => eventOf(r));
    expect(found.find((x) => x.event_id === e.event_id)).toEqual(e);
  });
});
