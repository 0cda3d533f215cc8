import { encodeLoggedEvent, LOGGED_EVENT_FINGERPRINT, type LoggedEvent } from "@feedlab/schemas";
import {
  type Admin,
  type Consumer,
  Kafka,
  logLevel as KafkaLogLevel,
  type LogEntry,
  type Producer,
} from "kafkajs";
import type { Knex } from "knex";
import type { Logger } from "pino";
import {
  APPEND_LOCK,
  type AppendResult,
  type EventLog,
  type LogPosition,
  type LogRecord,
  LogUnavailableError,
  recordErasure,
  type SubscribeOptions,
  type Subscription,
} from "./event-log.ts";
import { groupCommit } from "./group-commit.ts";
import {
  createDbKeyring,
  createMirrorKeyring,
  type Keyring,
  type ParticipantKey,
  seal,
  unseal,
} from "./keyring.ts";

/** The header naming whose key encrypted a record's value (absent: a plain record from before keys). */
const KEY_HEADER = "feedlab-key";

/**
 * The keys' mirror topic: compacted, so a destroyed key's record and its tombstone are cleaned away
 * (segments roll hourly; tombstones are dropped an hour after compaction).
 */
const KEYS_TOPIC_CONFIG = [
  { name: "cleanup.policy", value: "compact" },
  { name: "segment.ms", value: String(60 * 60 * 1000) },
  { name: "min.cleanable.dirty.ratio", value: "0.01" },
  { name: "delete.retention.ms", value: String(60 * 60 * 1000) },
];

/**
 * How many partitions one consumer applies at the same time. Each batch is its own database
 * transaction, so this is also how many of the database pool's connections projection takes.
 */
const PARTITIONS_IN_PARALLEL = 3;

export interface KafkaLogOptions {
  readonly brokers: readonly string[];
  /** The topic of this contract version (default `feedlab.events.v1`); the dead-letter topic is `<topic>.dlq`. */
  readonly topic: string;
  /** Partitions of a topic this adapter creates (an existing topic keeps its own). */
  readonly partitions: number;
  readonly clientId: string;
  readonly logger: Logger;
  /** Longest an append may wait for the brokers before it fails as unavailable. */
  readonly sendTimeoutMs?: number;
  /**
   * The database holding participant keys (`event_log_keys`). Without it the log is read-only, with
   * keys read from the `<topic>.keys` mirror (`feedlab tail`).
   */
  readonly db?: Knex;
}

/** 32-bit FNV-1a of a string: the partition of a session is `fnv1a(session_id) mod partitions`. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...extra } = log;
      if (level === KafkaLogLevel.ERROR) logger.error(extra, `kafka: ${message}`);
      else if (level === KafkaLogLevel.WARN) logger.warn(extra, `kafka: ${message}`);
      else logger.debug(extra, `kafka: ${message}`);
    };
}

/**
 * The Kafka adapter of the event log: one topic per contract version, keyed and partitioned by
 * session id so a session's events stay in order; values are Avro records with the schema's
 * fingerprint in a header; an idempotent producer waits for all in-sync replicas. Appends arriving
 * together go out as one produce request. Offsets are per partition; consumers keep their own
 * checkpoints beside the rows they write (nothing relies on Kafka's committed offsets).
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<EventLog> {
  const { topic, logger } = options;
  const sendTimeoutMs = options.sendTimeoutMs ?? 5000;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 3000 },
    logLevel: KafkaLogLevel.WARN,
    logCreator: kafkaLogger(logger),
  });
  const keysTopic = `${topic}.keys`;
  const admin: Admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      { topic, numPartitions: options.partitions, replicationFactor: -1 },
      { topic: `${topic}.dlq`, numPartitions: 1, replicationFactor: -1 },
      { topic: keysTopic, numPartitions: 1, replicationFactor: -1, configEntries: KEYS_TOPIC_CONFIG },
    ],
  });
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = meta.topics[0]?.partitions.length ?? options.partitions;

  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  const consumers = new Set<Consumer>();
  const keyring: Keyring = options.db
    ? createDbKeyring(options.db, {
        publish: async (entries) => {
          await producer.send({
            topic: keysTopic,
            acks: -1,
            messages: [...entries].map(([user, key]) => ({ key: user, value: key })),
          });
        },
      })
    : createMirrorKeyring(readMirror);

  /** The mirror topic read to its end: each participant's key, tombstoned ones left out. */
  async function readMirror(): Promise<Map<string, Buffer>> {
    const keys = new Map<string, Buffer>();
    const offsets = await admin.fetchTopicOffsets(keysTopic);
    const ends = new Map(offsets.map((o) => [o.partition, Number(o.high)]));
    const pending = new Set([...ends].filter(([, high]) => high > 0).map(([p]) => p));
    if (pending.size === 0) return keys;
    const consumer = kafka.consumer({
      groupId: `feedlab-keys-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: keysTopic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new LogUnavailableError(`the keys topic ${keysTopic} could not be read within 30 s`)),
          30_000,
        );
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              const user = message.key?.toString();
              if (user) {
                if (message.value && message.value.length > 0) keys.set(user, Buffer.from(message.value));
                else keys.delete(user);
              }
              if (Number(message.offset) >= (ends.get(partition) ?? 0) - 1) pending.delete(partition);
              if (pending.size === 0) done();
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    return keys;
  }

  /**
   * Log records of fetched messages: values encrypted with a participant's key are decrypted; those
   * whose key is destroyed are erased records (empty).
   */
  async function recordsOf(
    partition: number,
    messages: readonly { offset: string; value: Buffer | null; headers?: Record<string, unknown> }[],
  ): Promise<LogRecord[]> {
    const owner = (m: (typeof messages)[number]) => {
      const h = m.headers?.[KEY_HEADER];
      return h === undefined || h === null ? null : String(h);
    };
    const owners = [...new Set(messages.map(owner).filter((o): o is string => o !== null))];
    const keys = owners.length > 0 ? await keyring.find(owners) : new Map<string, ParticipantKey>();
    return messages.map((m) => {
      const offset = Number(m.offset);
      const value = m.value ?? new Uint8Array();
      const user = owner(m);
      if (user === null) return { partition, offset, value };
      const key = keys.get(user);
      if (!key) return { partition, offset, value: new Uint8Array(), erased: true };
      try {
        return { partition, offset, value: unseal(key, value) };
      } catch {
        // Altered bytes: handed on as they are, and the consumer's decoding dead-letters them.
        return { partition, offset, value };
      }
    });
  }

  async function send(batches: readonly (readonly LoggedEvent[])[]): Promise<AppendResult[]> {
    let keys: Map<string, ParticipantKey>;
    try {
      keys = await keyring.keysFor([...new Set(batches.flatMap((b) => b.map((e) => e.user_id)))]);
    } catch (err) {
      throw new LogUnavailableError(`participant keys unavailable: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const byPartition = new Map<number, { key: string; value: Buffer; eventId: string; owner: string }[]>();
    for (const batch of batches) {
      for (const e of batch) {
        const key = keys.get(e.user_id);
        // No key: the participant was erased while this batch was on its way.
        if (!key) continue;
        const p = fnv1a(e.session_id) % partitions;
        const list = byPartition.get(p) ?? [];
        list.push({
          key: e.session_id,
          value: seal(key, encodeLoggedEvent(e)),
          eventId: e.event_id,
          owner: e.user_id,
        });
        byPartition.set(p, list);
      }
    }
    const order = [...byPartition.entries()];
    const messages = order.flatMap(([partition, list]) =>
      list.map((m) => ({
        partition,
        key: m.key,
        value: m.value,
        headers: { "feedlab-schema-fingerprint": LOGGED_EVENT_FINGERPRINT, [KEY_HEADER]: m.owner },
      })),
    );
    if (messages.length === 0) return batches.map(() => ({ position: new Map(), appended: 0 }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new LogUnavailableError(`the Kafka brokers did not acknowledge within ${sendTimeoutMs} ms`)),
        sendTimeoutMs,
      );
    });
    let meta: Awaited<ReturnType<Producer["send"]>>;
    try {
      meta = await Promise.race([producer.send({ topic, acks: -1, messages }), timeout]);
    } catch (err) {
      if (err instanceof LogUnavailableError) throw err;
      throw new LogUnavailableError(`Kafka refused the batch: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    // Offsets: each partition's messages are consecutive from the batch's base offset.
    const offsetOf = new Map<string, { partition: number; offset: number }>();
    for (const [partition, list] of order) {
      const base = Number(meta.find((m) => m.partition === partition)?.baseOffset ?? Number.NaN);
      list.forEach((m, i) => {
        offsetOf.set(m.eventId, { partition, offset: base + i });
      });
    }
    return batches.map((batch) => {
      const position = new Map<number, number>();
      for (const e of batch) {
        const at = offsetOf.get(e.event_id);
        if (at) position.set(at.partition, Math.max(position.get(at.partition) ?? -1, at.offset));
      }
      return { position, appended: batch.filter((e) => offsetOf.has(e.event_id)).length };
    });
  }

  // Appends waiting while a send is in flight go out together in the next one (group commit).
  const enqueue = groupCommit(send, { isolate: false });

  async function position(): Promise<LogPosition> {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high) - 1]));
  }

  function subscribe(sub: SubscribeOptions): Subscription {
    // One consumer group per topic and consumer name, so deployments (and tests) sharing a cluster stay apart.
    const consumer = kafka.consumer({
      groupId: `${topic}.${sub.consumer}`,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      allowAutoTopicCreation: false,
    });
    consumers.add(consumer);
    let stopped = false;
    const started = (async () => {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      // Where to resume: Kafka's committed offsets, which this consumer commits only after the
      // batch's rows and checkpoint are committed in the database, so they never run ahead of the
      // read models; anything redelivered at or below the stored checkpoint is skipped by the
      // consumer. (Seeking inside a rebalance proved unreliable with kafkajs: partitions stalled.)
      await consumer.run({
        autoCommit: true,
        // Partitions apply side by side (each batch locks only its own partitions), so one slow
        // batch does not hold up the others' projection lag.
        partitionsConsumedConcurrently: Math.min(partitions, PARTITIONS_IN_PARALLEL),
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const records = await recordsOf(batch.partition, batch.messages);
          for (let i = 0; i < records.length && isRunning() && !isStale(); i += sub.maxBatch) {
            const chunk = records.slice(i, i + sub.maxBatch);
            try {
              await sub.onBatch(chunk);
            } catch (err) {
              sub.onError?.(err);
              throw err;
            }
            resolveOffset(String((chunk[chunk.length - 1] as LogRecord).offset));
            await heartbeat();
          }
        },
      });
    })().catch((err) => {
      if (!stopped) sub.onError?.(err);
    });
    return {
      stop: async () => {
        stopped = true;
        await started;
        await consumer.disconnect();
        consumers.delete(consumer);
      },
    };
  }

  /** Reads records after an offset of one partition, with a throwaway consumer (replay and tools). */
  async function read(partition: number, afterOffset: number, max: number): Promise<LogRecord[]> {
    const head = (await position()).get(partition) ?? -1;
    if (afterOffset >= head) return [];
    const consumer = kafka.consumer({
      groupId: `feedlab-reader-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    });
    const out: LogRecord[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const want = Math.min(head, afterOffset + max);
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              if (batch.partition !== partition) return;
              const wanted = batch.messages.filter((m) => {
                const offset = Number(m.offset);
                return offset > afterOffset && offset <= want;
              });
              out.push(...(await recordsOf(partition, wanted)));
              if (out.length > 0 && (out[out.length - 1] as LogRecord).offset >= want) resolve();
            },
          })
          .catch(reject);
        consumer.on(consumer.events.GROUP_JOIN, () => {
          consumer.seek({ topic, partition, offset: String(afterOffset + 1) });
        });
      });
    } finally {
      await consumer.disconnect();
    }
    return out;
  }

  return {
    kind: "kafka",
    append: (events) =>
      events.length === 0 ? Promise.resolve({ position: new Map(), appended: 0 }) : enqueue(events),
    subscribe,
    position,
    read,
    erase: async ({ userIds }, via) => {
      // Key creation waits (it holds this lock shared): no new key for someone being erased.
      await via.raw("select pg_advisory_xact_lock(?)", [APPEND_LOCK]);
      await recordErasure(via, userIds, new Date());
      const keys = await keyring.destroy(userIds, via);
      return {
        records: null,
        keys,
        afterCommit: async () => {
          for (let i = 0; i < userIds.length; i += 1000) {
            await producer.send({
              topic: keysTopic,
              acks: -1,
              messages: userIds.slice(i, i + 1000).map((u) => ({ key: u, value: null })),
            });
          }
        },
      };
    },
    deadLetter: async (records) => {
      await producer.send({
        topic: `${topic}.dlq`,
        acks: -1,
        messages: records.map((r) => ({
          value: Buffer.from(r.value),
          headers: { "feedlab-reason": r.reason, "feedlab-source": `${topic}/${r.partition}/${r.offset}` },
        })),
      });
    },
    healthcheck: async () => {
      await admin.describeCluster();
    },
    close: async () => {
      for (const c of consumers) await c.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}
