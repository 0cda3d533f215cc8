import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { encodeLoggedEvent } from "@feedlab/schemas";
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
  "The same intake load on the scale-out deployment: PostgreSQL, Kafka (KRaft, one broker), one API process and one projector process, all on this machine; floors: Kafka's own kafka-producer-perf-test (records of the same size, acks from all replicas, idempotent), the same batches produced straight to the broker with kafkajs, and PostgreSQL writing the same rows (events store, read models, checkpoints) with Feedlab's statements (goals: 50% of the lower floor, lag p99 < 250 ms)";

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

/**
 * The floor of the accepted rate: the load generator's batches produced straight to the broker, as
 * Feedlab's producer sends them (one request per batch, keyed by session, acks=-1), with no HTTP,
 * validation, keys or database in between.
 */
async function brokerFloor(
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
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
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
        await producer.send({ topic, acks: -1, messages });
        sent += messages.length;
      }
    }),
  );
  const rate = sent / ((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  await producer.disconnect();
  return { rate, cpuMsPer1000: ((used.user + used.system) / 1000) * (1000 / sent) };
}

export async function run() {
  const postgres = await startPostgres();
  const kafka = await startKafka();
  const env = {
    DATABASE_URL: postgres.url,
    KAFKA_BROKERS: kafka.brokers,
    FEEDLAB_KAFKA_TOPIC: `feedlab.events.bench-${randomUUID().slice(0, 8)}`,
  };
  const api = await startRole("api", env, await freePort());
  const projector = await startRole("projector", env);
  try {
    const result = await measure({
      url: api.url as string,
      admin: () => adminClient(api.url as string),
      peakRssMb: () =>
        Math.round((memoryOf(api.child.pid).hwm + memoryOf(projector.child.pid).hwm) / 2 ** 20),
      pids: { api: api.child.pid, projector: projector.child.pid },
      // The broker and database stay up for the floor, measured right after on the same broker.
      stop: async () => {
        await api.stop();
        await projector.stop();
      },
    });
    const floor = await brokerFloor(kafka.brokers);
    const id = randomUUID();
    const who = { session: id, user: id, login: "bench-0", experiment: id, group: id };
    const sample = batch({ seq: 0 }, ["video-0"], false).map((w) => encodeLoggedEvent(loggedEventOf(w, who)));
    const bytes = Math.round(sample.reduce((a, b) => a + b.length, 0) / sample.length);
    const perf = await perfTestFloor(kafka.brokers, bytes);
    const sent = Number(result["events sent"]);
    const database = await postgresFloor(postgres.url, Math.min(200_000, Math.max(40_000, sent)));
    const accepted = Number(result["accepted events/s"]);
    const projected = Number(result["accepted + projected events/s"]);
    const lower = Math.min(perf, database.rate);
    return {
      ...result,
      [`floor: kafka-producer-perf-test, ${bytes}-byte records (records/s)`]: Math.round(perf),
      "floor: the same batches produced straight to the broker with kafkajs (events/s)": Math.round(
        floor.rate,
      ),
      "floor CPU ms per 1,000 events: kafkajs producing them / PostgreSQL applying them (this process)": `${floor.cpuMsPer1000.toFixed(0)} / ${database.cpuMsPer1000.toFixed(0)}`,
      "floor: PostgreSQL writing the same rows (events/s)": Math.round(database.rate),
      "lag floor: a batch of 26 events written alone to PostgreSQL, p50 / p99 (ms)": `${database.batchP50.toFixed(1)} / ${database.batchP99.toFixed(1)}`,
      "accepted / perf-test floor": Number((accepted / perf).toFixed(2)),
      "accepted + projected / the lower of the perf-test and PostgreSQL floors": Number(
        (projected / lower).toFixed(2),
      ),
    };
  } finally {
    await kafka.stop();
    await postgres.stop();
  }
}
