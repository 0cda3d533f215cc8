import { randomUUID } from "node:crypto";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { Kafka, logLevel } from "kafkajs";
import { startKafka } from "../harness/kafka.ts";
import { freePort } from "../harness/ports.ts";
import { startPostgres } from "../harness/postgres.ts";
import { adminClient, startRole } from "../harness/processes.ts";
import { batch, measure } from "./intake.bench.ts";
import { memoryOf } from "./support.ts";

export const name = "intake-kafka";
export const description =
  "The same intake load on the scale-out deployment: PostgreSQL, Kafka (KRaft, one broker), one API process and one projector process, all on this machine; floor: the same batches, Avro-encoded, produced straight to the same broker by the same number of clients (idempotent producer, acks from all replicas), which is the cheapest way to log them durably here";

/**
 * The floor of the accepted rate: the load generator's batches produced straight to the broker, as
 * Feedlab's producer sends them (one request per batch, keyed by session, acks=-1), with no HTTP,
 * validation, keys or database in between.
 */
async function brokerFloor(brokers: string, seconds = 15, clients = 8): Promise<number> {
  const kafka = new Kafka({
    clientId: "bench-floor",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
  });
  const topic = `feedlab.floor-${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6 }] });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const sessions = Array.from({ length: clients * 4 }, () => ({ id: randomUUID(), seq: 0 }));
  const videos = Array.from({ length: 50 }, (_, i) => `video-${i}`);
  let sent = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let n = 0; performance.now() < until; n++) {
        const session = sessions[(c + clients * (n % 4)) % sessions.length] as (typeof sessions)[number];
        const now = new Date().toISOString();
        const messages = batch(session, videos, n % 5 === 4).map((w) => {
          const e: LoggedEvent = {
            watch_ratio: null,
            watch_duration: null,
            position_in_feed: null,
            video_id: null,
            ...w,
            session_id: session.id,
            user_id: session.id,
            login_id: `bench-${c}`,
            experiment_id: session.id,
            group_id: session.id,
            event_type: w.event_type,
            received_at: now,
            algorithm_feed: "popularity",
            algorithm_watch: "similarity",
            payload: w.payload as Record<string, unknown>,
            ui_feed: "grid-desktop",
            ui_watch: "grid-desktop",
          };
          return { key: session.id, value: encodeLoggedEvent(e) };
        });
        await producer.send({ topic, acks: -1, messages });
        sent += messages.length;
      }
    }),
  );
  const rate = sent / ((performance.now() - start) / 1000);
  await producer.disconnect();
  return rate;
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
      // The broker and database stay up for the floor, measured right after on the same broker.
      stop: async () => {
        await api.stop();
        await projector.stop();
      },
    });
    const floor = await brokerFloor(kafka.brokers);
    const accepted = Number(result["accepted events/s"]);
    return {
      ...result,
      "floor: the same batches produced straight to the broker (events/s)": Math.round(floor),
      "accepted / floor": Number((accepted / floor).toFixed(2)),
    };
  } finally {
    await kafka.stop();
    await postgres.stop();
  }
}
