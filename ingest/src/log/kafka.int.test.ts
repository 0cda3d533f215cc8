import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { forgetWriterSchema, type LoggedEvent } from "@feedlab/schemas";
import { openDb } from "@feedlab/sql";
import avro from "avsc";
import { Kafka, logLevel } from "kafkajs";
import type { Knex } from "knex";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { NEXT_FINGERPRINT, NEXT_SCHEMA, nextBody, produceRaw } from "../../../test/harness/next-release.ts";
import { startFakeRegistry } from "../../../test/harness/schema-registry.ts";
import { createTestStorage, type TestStorage } from "../../../test/harness/storage.ts";
import { createKafkaLog } from "../index.ts";
import { eventLogMigrations } from "./event-log.migration.ts";
import { type EventLog, eventOf } from "./event-log.ts";
import { KAFKA_CLIENTS } from "./kafka/client/port.ts";
import { partitionOf } from "./kafka-topics.ts";

// What a data engineer sees on the topic with standard tools: placement, headers, framing, the
// published schema, retention. (The port's contract is in event-log.contract.int.test.ts.)

const brokers = () => inject("kafkaBrokers").split(",");
const kafka = () => new Kafka({ clientId: "data-engineer", brokers: brokers(), logLevel: logLevel.NOTHING });

function event(sessionId: string, userId: string, i: number): LoggedEvent {
  return {
    event_id: randomUUID(),
    session_id: sessionId,
    user_id: userId,
    login_id: `prolific-${i}`,
    experiment_id: "00000000-0000-4000-8000-0000000e0001",
    group_id: "00000000-0000-4000-8000-000000009001",
    event_type: "FEED_CLICK",
    video_id: `yt-${i}`,
    timestamp: new Date(Date.UTC(2026, 10, 25, 10, 0, i)).toISOString(),
    received_at: new Date(Date.UTC(2026, 10, 25, 10, 0, i, 250)).toISOString(),
    watch_ratio: null,
    watch_duration: null,
    position_in_feed: i,
    algorithm_feed: "recency",
    algorithm_watch: "similarity",
    payload: { title: `Secret title ${i}`, videoId: `yt-${i}`, position: i },
    seq: i,
    ui_feed: "grid-desktop",
    ui_watch: "none",
  };
}

/** Every message of a topic as a plain kafkajs consumer (no Feedlab code) reads it. */
async function rawMessages(topic: string, count: number) {
  const groupId = `raw-${randomUUID()}`;
  const consumer = kafka().consumer({ groupId });
  const out: { partition: number; key: string; value: Buffer; headers: Record<string, string> }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          const headers = Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
          );
          out.push({ partition, key: String(message.key), value: message.value as Buffer, headers });
          if (out.length >= count) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return out;
}

describe.each(KAFKA_CLIENTS)("the Kafka topic as standard tools see it (written with %s)", (client) => {
  let storage: TestStorage;
  let db: Knex;
  let closeDb: () => Promise<void>;
  const logs: EventLog[] = [];
  const open = async (
    topic: string,
    logger = pino({ level: "silent" }),
    encryption: "fields" | "record" = "fields",
    registryUrl: string | null = null,
  ) => {
    const log = await createKafkaLog({
      brokers: brokers(),
      topic,
      partitions: 6,
      clientId: "t",
      client,
      logger,
      db,
      encryption,
      registryUrl,
    });
    logs.push(log);
    return log;
  };
  beforeAll(async () => {
    storage = await createTestStorage("pglite");
    const opened = openDb({ databaseUrl: null, dataDir: storage.env.FEEDLAB_DATA_DIR ?? "" });
    db = opened.db;
    closeDb = opened.close;
    for (const m of eventLogMigrations) await m.up(db);
  });
  afterAll(async () => {
    for (const l of logs) await l.close();
    await closeDb?.();
    await storage?.cleanup();
    // The integration files share their worker's modules (vitest.config.ts): the next release's
    // schema, read here, must not show in a later file's list of writers.
    forgetWriterSchema(NEXT_FINGERPRINT);
  });

  it("keys records by session, places them as the Java client would, and names each event in a header", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    const log = await open(topic);
    const events = Array.from({ length: 12 }, (_, i) => event(randomUUID(), randomUUID(), i));
    await log.append(events);
    const messages = await rawMessages(topic, events.length);
    for (const m of messages) {
      expect(m.partition).toBe(partitionOf(m.key, 6));
      const e = events.find((x) => x.session_id === m.key) as LoggedEvent;
      expect(m.headers["feedlab-event-id"]).toBe(e.event_id);
    }
    expect(new Set(messages.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it("writes values a standard Avro library decodes with the committed .avsc, the participant's login and payload sealed into the payload", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    const log = await open(topic);
    const e = event(randomUUID(), randomUUID(), 7);
    await log.append([e]);
    const [m] = await rawMessages(topic, 1);
    const value = m?.value as Buffer;
    expect([...value.subarray(0, 2)]).toEqual([0xc3, 0x01]);
    const avsc = JSON.parse(
      readFileSync(new URL("../../../schemas/avro/logged-event.v3.avsc", import.meta.url), "utf8"),
    );
    const record = avro.Type.forSchema(avsc).fromBuffer(value.subarray(10)) as Record<string, unknown>;
    expect(record).toMatchObject({
      event_id: e.event_id,
      session_id: e.session_id,
      user_id: e.user_id,
      event_type: "FEED_CLICK",
      video_id: "yt-7",
      position_in_feed: 7,
      ui_feed: "grid-desktop",
    });
    expect(record.login_id).toBe("");
    expect(Buffer.from(String(record.payload), "base64").length).toBeGreaterThan(28);
    expect(value.includes(Buffer.from("Secret title"))).toBe(false);
    expect(m?.headers["feedlab-encryption"]).toBe("fields");
  });

  it("seals the whole value when asked to (FEEDLAB_KAFKA_ENCRYPTION=record), and reads it back", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    const log = await open(topic, pino({ level: "silent" }), "record");
    const e = event(randomUUID(), randomUUID(), 3);
    const { position } = await log.append([e]);
    const [m] = await rawMessages(topic, 1);
    const value = m?.value ?? Buffer.alloc(0);
    expect(m?.headers["feedlab-encryption"]).toBe("record");
    expect([...value.subarray(0, 2)]).not.toEqual([0xc3, 0x01]);
    expect(value.includes(Buffer.from(e.event_id))).toBe(false);
    const [[partition, offset]] = [...position] as [[number, number]];
    const [record] = await log.read(partition, offset - 1, 1);
    expect(record && eventOf(record)).toEqual(e);
  });

  it("registers its schema in a schema registry and writes the Confluent wire format; reads another writer's record by its registry id", async () => {
    const registry = await startFakeRegistry();
    try {
      const topic = `feedlab.std.${randomUUID()}`;
      const log = await open(topic, pino({ level: "silent" }), "fields", registry.url);
      const ids = registry.subjects.get(`${topic}-value`) ?? [];
      expect(ids).toHaveLength(1);
      const e = event(randomUUID(), randomUUID(), 5);
      await log.append([e]);
      const [m] = await rawMessages(topic, 1);
      const value = m?.value as Buffer;
      expect(value[0]).toBe(0);
      expect(value.readUInt32BE(1)).toBe(ids[0]);
      // A Confluent consumer: the schema by the id in the frame, from the registry.
      const schema = JSON.parse(registry.schemas.get(value.readUInt32BE(1)) as string);
      const record = avro.Type.forSchema(schema).fromBuffer(value.subarray(5)) as Record<string, unknown>;
      expect(record).toMatchObject({ event_id: e.event_id, video_id: "yt-5" });

      // A newer writer's record, framed with the id its schema got: read via the registry.
      const nextId = registry.register(`${topic}-value`, NEXT_SCHEMA);
      const newer = event(randomUUID(), randomUUID(), 6);
      const head = Buffer.alloc(5);
      head.writeUInt32BE(nextId, 1);
      await produceRaw(brokers(), topic, [
        { key: newer.session_id, value: Buffer.concat([head, nextBody(newer, "UTC")]) },
      ]);
      const partition = partitionOf(newer.session_id, 6);
      const head2 = (await log.position()).get(partition) ?? 0;
      const [read] = await log.read(partition, head2 - 1, 1);
      expect(read && eventOf(read)).toEqual(newer);
    } finally {
      await registry.close();
    }
  });

  it("reads inside the caller's transaction on an embedded database (a replay holds PGlite's only connection)", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    const writer = await open(topic);
    const e = event(randomUUID(), randomUUID(), 8);
    await writer.append([e]);
    // A fresh process (`feedlab replay`): no participant key remembered yet.
    const reader = await open(topic);
    const head = await reader.position();
    const seen: string[] = [];
    await db.transaction(async (trx) => {
      await reader.scan({
        after: new Map([...head.keys()].map((p) => [p, -1])),
        until: head,
        maxBatch: 100,
        via: trx,
        onBatch: async (records) => {
          seen.push(...records.map((r) => eventOf(r).event_id));
        },
      }).done;
    });
    expect(seen).toEqual([e.event_id]);
  }, 60_000);

  it("creates the topic to keep records forever, and says loudly at start when an existing topic deletes them", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    await open(topic);
    const admin = kafka().admin();
    await admin.connect();
    const configs = async (name: string) =>
      (
        await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: 2, name, configNames: ["retention.ms", "retention.bytes"] }],
        })
      ).resources[0]?.configEntries.map((c) => [c.configName, c.configValue]);
    expect(Object.fromEntries((await configs(topic)) ?? [])).toEqual({
      "retention.ms": "-1",
      "retention.bytes": "-1",
    });

    const weekly = `feedlab.std.${randomUUID()}`;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: weekly, numPartitions: 2, configEntries: [{ name: "retention.ms", value: "604800000" }] },
      ],
    });
    await admin.disconnect();
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    await open(weekly, logger);
    const said = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(said).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: expect.stringMatching(/EVENTS WILL BE LOST: .*older than 7 days/),
      }),
    );
  });

  it("keeps placing sessions by FNV-1a on a topic an earlier release filled that way", async () => {
    const topic = `feedlab.std.${randomUUID()}`;
    const admin = kafka().admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6 }] });
    await admin.disconnect();
    // Records as release 0.2 wrote them: partition fnv1a(session) mod 6, recorded once with an
    // implementation independent of ours (as in kafka-topics.test.ts).
    const old: [session: string, partition: number][] = [
      ["00000000-0000-4000-8000-000000000001", 2],
      ["00000000-0000-4000-8000-000000000002", 3],
      ["00000000-0000-4000-8000-000000000003", 4],
      ["00000000-0000-4000-8000-000000000004", 5],
      ["00000000-0000-4000-8000-000000000005", 0],
      ["00000000-0000-4000-8000-000000000006", 1],
      ["00000000-0000-4000-8000-000000000007", 2],
      ["00000000-0000-4000-8000-000000000008", 5],
    ];
    const producer = kafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: old.map(([key, partition]) => ({ key, value: "x", partition })) });
    await producer.disconnect();
    const log = await open(topic);
    // A session whose two placements differ shows which one the log kept: the Java client's
    // partitioner puts it on 1 of 6, FNV-1a on 2.
    const session = "9b2f3c1e-7a44-4d0e-9a51-2f6c1d8e0b7a";
    const { position } = await log.append([event(session, randomUUID(), 1)]);
    expect([...position.keys()]).toEqual([2]);
  });
});
