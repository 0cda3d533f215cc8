import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { KAFKA_CLIENTS, type KafkaClientName } from "@feedlab/ingest";
import { encodeLoggedEvent } from "@feedlab/schemas";
import { ProduceAcks, Producer } from "@platformatic/kafka";
import { Kafka, logLevel } from "kafkajs";
import { startKafka } from "../harness/kafka.ts";
import { freePort } from "../harness/ports.ts";
import { startPostgres } from "../harness/postgres.ts";
import { adminClient, startRole } from "../harness/processes.ts";
import { batch, measure } from "./intake.bench.ts";
import { loggedEventOf, postgresFloor } from "./intake-floor.ts";
import { memoryOf } from "./proc.ts";

export const name = "intake-kafka";
export const description =
  "The same intake load on the scale-out deployment: PostgreSQL, Kafka (KRaft, one broker), one API process and one projector process, all on this machine; floors: Kafka's own kafka-producer-perf-test (records of the same size, acks from all replicas, idempotent), the same batches produced straight to the broker with each client alone, and PostgreSQL writing the same rows (events store, read models, checkpoints) with Feedlab's statements (goals: 50% of the lower floor, lag p99 < 250 ms; CPU per event: API within 2x its client alone, projector within 1.5x PostgreSQL). Runs each Kafka client (FEEDLAB_KAFKA_CLIENT) in turn: FEEDLAB_BENCH_KAFKA_CLIENTS=kafkajs,platformatic";

/** A new topic of 6 partitions, named `<prefix>-<random>`, for a floor. */
async function freshTopic(kafka: Kafka, prefix: string): Promise<string> {
  const topic = `${prefix}-${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6 }] });
  await admin.disconnect();
  return topic;
}

const KAFKA_BIN = path.resolve(import.meta.dirname, "../../.cache/kafka/bin");

/**
 * The broker's own produce rate: Apache Kafka's kafka-producer-perf-test (the Java client, batching
 * as it does by default) sending `records` records of `bytes` bytes to a fresh 6-partition topic with
 * Feedlab's durability settings. Answers records per second (its summary line).
 */
async function perfTestFloor(brokers: string, bytes: number, records = 300_000): Promise<number> {
  const kafka = new Kafka({
    clientId: "bench-perf",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
  });
  const topic = await freshTopic(kafka, "feedlab.perf");
  const { stdout } = await promisify(execFile)(
    path.join(KAFKA_BIN, "kafka-producer-perf-test"),
    [
      "--topic",
      topic,
      "--num-records",
      String(records),
      "--record-size",
      String(bytes),
      "--throughput",
      "-1",
      "--producer-props",
      `bootstrap.servers=${brokers}`,
      "acks=all",
      "enable.idempotence=true",
    ],
    { maxBuffer: 16 * 2 ** 20 },
  );
  const summary = /(\d+) records sent, ([\d.]+) records\/sec/.exec(stdout.trim().split("\n").at(-1) ?? "");
  if (!summary) throw new Error(`kafka-producer-perf-test printed no summary:\n${stdout.slice(-500)}`);
  return Number(summary[2]);
}

/** A producer straight on one client, with Feedlab's durability settings (idempotent, acks from all replicas). */
interface RawProducer {
  send(topic: string, messages: { key: string; value: Buffer }[]): Promise<void>;
  close(): Promise<void>;
}

async function rawProducer(client: KafkaClientName, brokers: string): Promise<RawProducer> {
  if (client === "platformatic") {
    const producer = new Producer({
      clientId: "bench-floor",
      bootstrapBrokers: brokers.split(","),
      idempotent: true,
      acks: ProduceAcks.ALL,
    });
    return {
      send: async (topic, messages) => {
        await producer.send({
          messages: messages.map((m) => ({ topic, key: Buffer.from(m.key), value: m.value })),
        });
      },
      close: () => producer.close(),
    };
  }
  const kafka = new Kafka({
    clientId: "bench-floor",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return {
    send: async (topic, messages) => {
      await producer.send({ topic, acks: -1, messages });
    },
    close: () => producer.disconnect(),
  };
}

/**
 * The floor of the accepted rate and of the API's CPU: the load generator's batches, encoded, produced
 * straight to the broker with the client alone (one request per batch, keyed by session, acks=-1), with
 * no HTTP, validation, keys or database in between.
 */
async function brokerFloor(
  client: KafkaClientName,
  brokers: string,
  seconds = 15,
  clients = 8,
): Promise<{ rate: number; cpuMsPer1000: number }> {
  const kafka = new Kafka({
    clientId: "bench-floor",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
  });
  const topic = await freshTopic(kafka, "feedlab.floor");
  const producer = await rawProducer(client, brokers);
  const sessions = Array.from({ length: clients * 4 }, () => ({ id: randomUUID(), seq: 0 }));
  const videos = Array.from({ length: 50 }, (_, i) => `video-${i}`);
  let sent = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const until = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let n = 0; performance.now() < until; n++) {
        const session = sessions[(c + clients * (n % 4)) % sessions.length] as (typeof sessions)[number];
        const messages = batch(session, videos, n % 5 === 4).map((w) => {
          const e = loggedEventOf(w, {
            session: session.id,
            user: session.id,
            login: `bench-${c}`,
            experiment: session.id,
            group: session.id,
          });
          return { key: session.id, value: encodeLoggedEvent(e) };
        });
        await producer.send(topic, messages);
        sent += messages.length;
      }
    }),
  );
  const rate = sent / ((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  await producer.close();
  return { rate, cpuMsPer1000: ((used.user + used.system) / 1000) * (1000 / sent) };
}

/** Events a transaction of the second PostgreSQL floor: about the projector's batches under this load. */
const SMALL_TRANSACTION = 200;

/** The clients compared (`FEEDLAB_BENCH_KAFKA_CLIENTS=kafkajs,platformatic`, the default: both). */
const clientsCompared = (): KafkaClientName[] =>
  (process.env.FEEDLAB_BENCH_KAFKA_CLIENTS ?? KAFKA_CLIENTS.join(","))
    .split(",")
    .map((c) => c.trim())
    .filter((c): c is KafkaClientName => (KAFKA_CLIENTS as readonly string[]).includes(c));

export async function run() {
  const postgres = await startPostgres();
  const kafka = await startKafka();
  const out: Record<string, string | number> = {};
  try {
    const costs: Record<string, { api: number; projector: number; floor: number }> = {};
    // Each client runs the same load on its own topic, with its own API and projector processes,
    // then its producer floor on the same broker.
    for (const client of clientsCompared()) {
      const env = {
        DATABASE_URL: postgres.url,
        KAFKA_BROKERS: kafka.brokers,
        FEEDLAB_KAFKA_TOPIC: `feedlab.events.bench-${randomUUID().slice(0, 8)}`,
        FEEDLAB_KAFKA_CLIENT: client,
      };
      const api = await startRole("api", env, await freePort());
      const projector = await startRole("projector", env);
      const result = await measure({
        url: api.url as string,
        admin: () => adminClient(api.url as string),
        peakRssMb: () =>
          Math.round((memoryOf(api.child.pid).hwm + memoryOf(projector.child.pid).hwm) / 2 ** 20),
        pids: { api: api.child.pid, projector: projector.child.pid },
        stop: async () => {
          await api.stop();
          await projector.stop();
        },
      });
      const floor = await brokerFloor(client, kafka.brokers);
      for (const [k, v] of Object.entries(result)) out[`${client}: ${k}`] = v;
      out[`${client}: floor: the same batches produced straight to the broker with ${client} (events/s)`] =
        Math.round(floor.rate);
      out[`${client}: floor CPU ms per 1,000 events: ${client} producing them`] = Math.round(
        floor.cpuMsPer1000,
      );
      costs[client] = {
        api: Number((result as Record<string, unknown>)["CPU ms per 1,000 events: api"]),
        projector: Number((result as Record<string, unknown>)["CPU ms per 1,000 events: projector"]),
        floor: floor.cpuMsPer1000,
      };
    }
    const id = randomUUID();
    const who = { session: id, user: id, login: "bench-0", experiment: id, group: id };
    const sample = batch({ seq: 0 }, ["video-0"], false).map((w) => encodeLoggedEvent(loggedEventOf(w, who)));
    const bytes = Math.round(sample.reduce((a, b) => a + b.length, 0) / sample.length);
    const perf = await perfTestFloor(kafka.brokers, bytes);
    const sent = Math.max(...Object.keys(costs).map((c) => Number(out[`${c}: events sent`])));
    const database = await postgresFloor(postgres.url, Math.min(200_000, Math.max(40_000, sent)));
    out[`floor: kafka-producer-perf-test, ${bytes}-byte records (records/s)`] = Math.round(perf);
    out["floor: PostgreSQL writing the same rows (events/s)"] = Math.round(database.rate);
    out["floor CPU ms per 1,000 events: PostgreSQL applying them (this process)"] = Math.round(
      database.cpuMsPer1000,
    );
    // The floor writes 2,000 events a transaction; the projector's batches are what the broker has
    // for a partition when it fetches (about 190 events under this load, counted in its statements):
    // the same rows in transactions of that size say what the batch size alone costs.
    const small = await postgresFloor(postgres.url, 40_000, SMALL_TRANSACTION);
    out[
      `floor CPU ms per 1,000 events: PostgreSQL applying them ${SMALL_TRANSACTION} a transaction (this process)`
    ] = Math.round(small.cpuMsPer1000);
    out["lag floor: a batch of 26 events written alone to PostgreSQL, p50 / p99 (ms)"] =
      `${database.batchP50.toFixed(1)} / ${database.batchP99.toFixed(1)}`;
    const lower = Math.min(perf, database.rate);
    for (const [client, cost] of Object.entries(costs)) {
      out[`${client}: accepted / perf-test floor`] = Number(
        (Number(out[`${client}: accepted events/s`]) / perf).toFixed(2),
      );
      out[`${client}: accepted + projected / the lower of the perf-test and PostgreSQL floors`] = Number(
        (Number(out[`${client}: accepted + projected events/s`]) / lower).toFixed(2),
      );
      // Goals: the API within 2x its client producing the events alone, the projector within 1.5x
      // PostgreSQL writing their rows.
      out[`${client}: CPU per event, API / its client's producer floor (goal 2)`] = Number(
        (cost.api / cost.floor).toFixed(2),
      );
      out[`${client}: CPU per event, projector / PostgreSQL floor (goal 1.5)`] = Number(
        (cost.projector / database.cpuMsPer1000).toFixed(2),
      );
      out[`${client}: CPU per event, projector / PostgreSQL ${SMALL_TRANSACTION} a transaction`] = Number(
        (cost.projector / small.cpuMsPer1000).toFixed(2),
      );
    }
    return out;
  } finally {
    await kafka.stop();
    await postgres.stop();
  }
}
