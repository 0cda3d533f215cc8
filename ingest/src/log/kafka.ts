import {
  CURRENT_WRITER,
  decodeLoggedEvent,
  encodeLoggedEvent,
  encodeLoggedEventConfluent,
  LOGGED_EVENT_FINGERPRINT,
  type LoggedEvent,
  sealableFields,
} from "@feedlab/schemas";
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
  LOG_HEADERS,
  type LogPosition,
  type LogRecord,
  LogUnavailableError,
  recordErasure,
  type Scan,
  type ScanOptions,
  type SubscribeOptions,
  type Subscription,
} from "./event-log.ts";
import { groupCommit } from "./group-commit.ts";
import {
  dropConsumer,
  fnv1a,
  type Placement,
  partitionOf,
  readCompacted,
  retentionOf,
  retentionProblem,
  throwawayGroup,
  topicOffsets,
} from "./kafka-topics.ts";
import {
  createDbKeyring,
  createMirrorKeyring,
  type Keyring,
  openFields,
  type ParticipantKey,
  seal,
  sealFields,
  unseal,
} from "./keyring.ts";
import {
  createWriterResolver,
  type RegistryOptions,
  registrySchemaSource,
  type SchemaSource,
  type StoredSchema,
} from "./writer-schemas.ts";

export { fnv1a, partitionOf };

/** What a participant key encrypts on the topic. */
export type Encryption = "fields" | "record";

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

/** Event ids produced recently, whose repeats (client retries) are not produced again. */
const RECENT_IDS = 200_000;

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
   * The database holding participant keys (`event_log_keys`). Without it the log is read-only: it
   * creates no topic and no producer, and reads keys from the `<topic>.keys` mirror (`feedlab tail`).
   */
  readonly db?: Knex;
  /** `retention.ms` of topics this adapter creates (-1, the default: records are kept forever). */
  readonly retentionMs?: number;
  /** What participant keys encrypt (default `fields`: the values stay readable by standard Avro tools). */
  readonly encryption?: Encryption;
  /** A Confluent-compatible schema registry: values then use the Confluent wire format. */
  readonly registryUrl?: string | null;
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

interface Message {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, unknown>;
}

const headerText = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  return Array.isArray(v) ? String(v[0]) : String(v);
};

/**
 * The Kafka adapter of the event log: one topic per contract version, keyed by session id and
 * placed by the Java client's default partitioner, so a session's events stay in order and line up
 * with other topics keyed by session; values are Avro single-object encoded (or in the Confluent wire
 * format with a registry), with the participant's login and payload encrypted under their own key
 * (crypto-shredding, see docs/erasure.md); an idempotent producer waits for all in-sync replicas.
 * Appends arriving together go out as one produce request. Offsets are per partition; consumers
 * keep their own checkpoints beside the rows they write.
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<EventLog> {
  const { topic, logger } = options;
  const readOnly = !options.db;
  const sendTimeoutMs = options.sendTimeoutMs ?? 5000;
  const encryption = options.encryption ?? "fields";
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
  const schemasTopic = `${topic}.schemas`;
  const admin: Admin = kafka.admin();
  await admin.connect();
  let producer: Producer | null = null;
  try {
    const existing = new Set(await admin.listTopics());
    if (readOnly) {
      if (!existing.has(topic))
        throw new LogUnavailableError(
          `There is no topic ${topic} on ${options.brokers.join(",")}: nothing has been logged there yet (set FEEDLAB_KAFKA_TOPIC to the topic Feedlab writes).`,
        );
    } else {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic,
            numPartitions: options.partitions,
            replicationFactor: -1,
            configEntries: [
              { name: "retention.ms", value: String(options.retentionMs ?? -1) },
              { name: "retention.bytes", value: "-1" },
            ],
          },
          {
            topic: `${topic}.dlq`,
            numPartitions: 1,
            replicationFactor: -1,
            configEntries: [{ name: "retention.ms", value: "-1" }],
          },
          { topic: keysTopic, numPartitions: 1, replicationFactor: -1, configEntries: KEYS_TOPIC_CONFIG },
          {
            topic: schemasTopic,
            numPartitions: 1,
            replicationFactor: -1,
            configEntries: [{ name: "cleanup.policy", value: "compact" }],
          },
        ].filter((t) => !existing.has(t.topic)),
      });
    }
  } catch (err) {
    await admin.disconnect();
    throw err;
  }
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = meta.topics[0]?.partitions.length ?? options.partitions;

  if (!readOnly) {
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
  }
  const consumers = new Set<Consumer>();
  const scans = new Set<Scan>();

  const keyring: Keyring = options.db
    ? createDbKeyring(options.db, {
        publish: async (entries) => {
          await (producer as Producer).send({
            topic: keysTopic,
            acks: -1,
            messages: [...entries].map(([user, key]) => ({ key: user, value: key })),
          });
        },
      })
    : createMirrorKeyring(() => readCompacted(kafka, admin, keysTopic));

  // Writers' schemas: published to the compacted `<topic>.schemas` (or a registry); read by fingerprint.
  let schemaCache: Map<string, Buffer> | null = null;
  const topicSchemas: SchemaSource = {
    async publish() {
      await (producer as Producer).send({
        topic: schemasTopic,
        acks: -1,
        messages: [
          {
            key: CURRENT_WRITER.fingerprint,
            value: JSON.stringify({ version: CURRENT_WRITER.version, schema: CURRENT_WRITER.schema }),
          },
        ],
      });
      return undefined;
    },
    async byFingerprint(fingerprints) {
      if (!schemaCache || fingerprints.some((f) => !schemaCache?.has(f)))
        schemaCache = await readCompacted(kafka, admin, schemasTopic);
      const out = new Map<string, StoredSchema>();
      for (const f of fingerprints) {
        const v = schemaCache.get(f);
        if (v) out.set(f, JSON.parse(v.toString("utf8")) as StoredSchema);
      }
      return out;
    },
  };
  const registry: RegistryOptions | null = options.registryUrl
    ? { url: options.registryUrl, subject: `${topic}-value` }
    : null;
  const schemas = registry ? registrySchemaSource(registry, topicSchemas) : topicSchemas;
  const resolveWriters = createWriterResolver(schemas);
  let registryId: number | undefined;

  let placement: Placement = "murmur2";
  try {
    if (!readOnly) {
      registryId = await schemas.publish();
      placement = await placementOf();
      const problem = retentionProblem(topic, await retentionOf(admin, topic));
      if (problem) logger.error({ topic }, `EVENTS WILL BE LOST: ${problem}`);
    }
  } catch (err) {
    await producer?.disconnect();
    await admin.disconnect();
    throw err;
  }

  /**
   * How the topic places sessions, decided once per topic and kept in the database
   * (`event_log_topics`), so that later starts read a row instead of the topic. A topic keeps its
   * placement, so that a session's records never change partition.
   */
  async function placementOf(): Promise<Placement> {
    const db = options.db as Knex;
    const stored = async () =>
      (
        (await db("event_log_topics").where({ topic }).first("placement")) as
          | { placement: Placement }
          | undefined
      )?.placement;
    const known = await stored();
    if (known) return known;
    const detected = await detectPlacement();
    await db("event_log_topics").insert({ topic, placement: detected }).onConflict("topic").ignore();
    // Another process may have decided first: its decision holds.
    return (await stored()) ?? detected;
  }

  /**
   * murmur2 (the Java client's default) unless the topic was filled by a release that placed
   * sessions by FNV-1a, seen from where its newest records sit.
   */
  async function detectPlacement(): Promise<Placement> {
    if (partitions === 1) return "murmur2";
    const offsets = await topicOffsets(admin, topic);
    const newest = offsets.filter((o) => Number(o.high) > Number(o.low)).slice(0, 4);
    if (newest.length === 0) return "murmur2";
    const keyed: { partition: number; key: string }[] = [];
    const s = scan({
      after: new Map(newest.map((o) => [o.partition, Number(o.high) - 2])),
      until: new Map(newest.map((o) => [o.partition, Number(o.high) - 1])),
      maxBatch: 10,
      raw: true,
      onBatch: async (records) => {
        for (const r of records)
          if (r.original?.key) keyed.push({ partition: r.partition, key: r.original.key });
      },
    });
    await s.done;
    const fits = (p: Placement) => keyed.every((k) => partitionOf(k.key, partitions, p) === k.partition);
    if (keyed.length > 0 && !fits("murmur2") && fits("fnv1a")) {
      logger.warn(
        { topic },
        "this topic places sessions by FNV-1a (it was created by a release before 0.3); Feedlab keeps that placement so sessions stay in order. New topics use the Java client's default partitioner.",
      );
      return "fnv1a";
    }
    return "murmur2";
  }

  /**
   * Log records of fetched messages: encrypted values or fields are decrypted; those whose key is
   * destroyed are erased records (empty). Writers' schemas this process does not know yet are looked
   * up first.
   */
  async function recordsOf(
    partition: number,
    messages: readonly Message[],
    raw = false,
    via?: Knex.Transaction,
  ): Promise<LogRecord[]> {
    const ownerOf = (m: Message) => headerText(m.headers?.[LOG_HEADERS.key]);
    const owners = [...new Set(messages.map(ownerOf).filter((o): o is string => o !== null))];
    const keys =
      owners.length > 0 && !raw ? await keyring.find(owners, via) : new Map<string, ParticipantKey>();
    const out: LogRecord[] = [];
    for (const m of messages) {
      const offset = Number(m.offset);
      const value: Uint8Array = m.value ?? new Uint8Array();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.headers ?? {})) {
        const t = headerText(v);
        if (t !== null) headers[k] = t;
      }
      const original = { key: m.key?.toString() ?? null, value, headers };
      const user = ownerOf(m);
      if (raw || user === null) {
        out.push({ partition, offset, value, original });
        continue;
      }
      const key = keys.get(user);
      if (!key) {
        out.push({ partition, offset, value: new Uint8Array(), erased: true, original });
        continue;
      }
      if (headers[LOG_HEADERS.encryption] === "fields") {
        out.push({ partition, offset, value, original });
        continue;
      }
      try {
        out.push({ partition, offset, value: unseal(key, value), original });
      } catch {
        // Altered bytes: handed on as they are, and the consumer's decoding dead-letters them.
        out.push({ partition, offset, value, original });
      }
    }
    if (raw) return out;
    await resolveWriters(out.filter((r) => !r.erased).map((r) => r.value));
    // Records with encrypted fields are decoded here, where the key is at hand.
    return out.map((r) => {
      if (r.erased || r.original?.headers[LOG_HEADERS.encryption] !== "fields") return r;
      const key = keys.get(r.original.headers[LOG_HEADERS.key] ?? "") as ParticipantKey;
      try {
        return { ...r, event: decodeLoggedEvent(r.value, (sealed) => openFields(key, sealed)) };
      } catch {
        return r;
      }
    });
  }

  const recent = new Map<string, { partition: number; offset: number }>();
  const remember = (eventId: string, at: { partition: number; offset: number }) => {
    if (recent.size >= RECENT_IDS) {
      const oldest = recent.keys().next().value;
      if (oldest !== undefined) recent.delete(oldest);
    }
    recent.set(eventId, at);
  };

  async function send(batches: readonly (readonly LoggedEvent[])[]): Promise<AppendResult[]> {
    if (!producer) throw new Error("This process reads the log only; it cannot append.");
    let keys: Map<string, ParticipantKey>;
    try {
      keys = await keyring.keysFor([...new Set(batches.flatMap((b) => b.map((e) => e.user_id)))]);
    } catch (err) {
      throw new LogUnavailableError(`participant keys unavailable: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const byPartition = new Map<number, { key: string; value: Buffer; eventId: string; owner: string }[]>();
    const taken = new Set<string>();
    for (const batch of batches) {
      for (const e of batch) {
        const key = keys.get(e.user_id);
        // No key: the participant was erased while this batch was on its way. A repeat of an event
        // produced a moment ago (a client's retry) is not produced again.
        if (!key || taken.has(e.event_id) || recent.has(e.event_id)) continue;
        taken.add(e.event_id);
        const p = partitionOf(e.session_id, partitions, placement);
        const list = byPartition.get(p) ?? [];
        list.push({ key: e.session_id, value: encode(e, key), eventId: e.event_id, owner: e.user_id });
        byPartition.set(p, list);
      }
    }
    const order = [...byPartition.entries()];
    const messages = order.flatMap(([partition, list]) =>
      list.map((m) => ({
        partition,
        key: m.key,
        value: m.value,
        headers: {
          [LOG_HEADERS.eventId]: m.eventId,
          [LOG_HEADERS.key]: m.owner,
          [LOG_HEADERS.encryption]: encryption,
          [LOG_HEADERS.schema]: LOGGED_EVENT_FINGERPRINT,
        },
      })),
    );
    const offsetOf = new Map<string, { partition: number; offset: number }>();
    if (messages.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new LogUnavailableError(`the Kafka brokers did not acknowledge within ${sendTimeoutMs} ms`),
            ),
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
      for (const [partition, list] of order) {
        const base = Number(meta.find((m) => m.partition === partition)?.baseOffset ?? Number.NaN);
        list.forEach((m, i) => {
          const at = { partition, offset: base + i };
          offsetOf.set(m.eventId, at);
          remember(m.eventId, at);
        });
      }
    }
    const counted = new Set<string>();
    return batches.map((batch) => {
      const position = new Map<number, number>();
      let appended = 0;
      for (const e of batch) {
        const fresh = offsetOf.get(e.event_id);
        const at = fresh ?? recent.get(e.event_id);
        if (at) position.set(at.partition, Math.max(position.get(at.partition) ?? -1, at.offset));
        if (fresh && !counted.has(e.event_id)) {
          counted.add(e.event_id);
          appended++;
        }
      }
      return { position, appended };
    });
  }

  /** A record's value: the Avro frame with the participant's fields sealed, or the whole frame sealed. */
  function encode(e: LoggedEvent, key: ParticipantKey): Buffer {
    if (encryption === "record") return seal(key, encodeLoggedEvent(e));
    const sealed = sealFields(key, sealableFields(e));
    return registryId === undefined
      ? encodeLoggedEvent(e, sealed)
      : encodeLoggedEventConfluent(e, registryId, sealed);
  }

  // Appends waiting while a send is in flight go out together in the next one (group commit).
  const enqueue = groupCommit(send, { isolate: false });

  async function position(): Promise<LogPosition> {
    const offsets = await topicOffsets(admin, topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high) - 1]));
  }

  /** How long a consumer that crashed for good waits before it starts again. */
  const CONSUMER_RESTART_MS = 2000;

  function subscribe(sub: SubscribeOptions): Subscription {
    // One consumer group per topic and consumer name, so deployments (and tests) sharing a cluster stay apart.
    const consumer = kafka.consumer({
      groupId: `${topic}.${sub.consumer}`,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      allowAutoTopicCreation: false,
      // kafkajs waits up to 5 s in a fetch that finds nothing new, and sleeps as long when no
      // partition is ready to fetch (after a rebalance): a record appended meanwhile waited with it.
      maxWaitTimeInMs: 100,
    });
    consumers.add(consumer);
    let stopped = false;
    let restartTimer: ReturnType<typeof setTimeout> | null = null;
    // kafkajs restarts a consumer that crashed on a retriable error itself; one that ran out of
    // tries (a broker away for longer than its retries: "Failed to find group coordinator") it only
    // disconnects. Started again here until it runs, so an outage never stops the projection for good.
    const restartLater = () => {
      if (stopped || restartTimer) return;
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (!stopped) started = start();
      }, CONSUMER_RESTART_MS);
    };
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopped) return;
      sub.onError?.(payload.error);
      restartLater();
    });
    const start = () =>
      run().catch((err) => {
        if (stopped) return;
        sub.onError?.(err);
        restartLater();
      });
    const run = async () => {
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
    };
    let started = start();
    return {
      stop: async () => {
        stopped = true;
        if (restartTimer) clearTimeout(restartTimer);
        await started;
        await consumer.disconnect();
        consumers.delete(consumer);
      },
    };
  }

  /**
   * Reads after a position with a throwaway consumer that commits nothing, seeks each partition
   * itself, and deletes its group when done: no trace on the brokers.
   */
  function scan(o: ScanOptions & { raw?: boolean }): Scan {
    const after = new Map(o.after);
    const until = o.until ? new Map(o.until) : null;
    const pending = new Set(
      until ? [...until].filter(([p, last]) => last > (after.get(p) ?? -1)).map(([p]) => p) : [],
    );
    const groupId = throwawayGroup("scan");
    const consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      maxBytesPerPartition: 4 * 1024 * 1024,
    });
    let stopped = false;
    let finish: (err?: unknown) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      finish = (err) => (err ? reject(err) : resolve());
    });
    const run = async () => {
      if (until && pending.size === 0) return;
      await consumer.connect();
      if (stopped) return;
      await consumer.subscribe({ topic, fromBeginning: true });
      consumer.on(consumer.events.GROUP_JOIN, () => {
        const done: number[] = [];
        for (let p = 0; p < partitions; p++) {
          if (until && !pending.has(p)) {
            done.push(p);
            continue;
          }
          const from = after.get(p);
          if (from !== undefined) consumer.seek({ topic, partition: p, offset: String(from + 1) });
        }
        // Partitions with nothing to deliver are not fetched at all.
        if (done.length > 0) consumer.pause([{ topic, partitions: done }]);
      });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const p = batch.partition;
          if (stopped || (until && !pending.has(p))) return;
          const last = until?.get(p) ?? Number.POSITIVE_INFINITY;
          const from = after.get(p) ?? -1;
          const wanted = batch.messages.filter((m) => {
            const offset = Number(m.offset);
            return offset > from && offset <= last;
          });
          for (let i = 0; i < wanted.length; i += o.maxBatch) {
            const records = await recordsOf(p, wanted.slice(i, i + o.maxBatch), o.raw, o.via);
            if (records.length === 0) continue;
            try {
              await o.onBatch(records);
            } catch (err) {
              finish(err);
              stopped = true;
              return;
            }
            after.set(p, (records[records.length - 1] as LogRecord).offset);
          }
          if (until && (after.get(p) ?? -1) >= last) {
            pending.delete(p);
            consumer.pause([{ topic, partitions: [p] }]);
            if (pending.size === 0) finish();
          }
        },
      });
    };
    const started = run().catch((err) => finish(err));
    const done = finished.finally(async () => {
      stopped = true;
      await started;
      await dropConsumer(admin, consumer, groupId);
    });
    if (until && pending.size === 0) finish();
    const handle: Scan = {
      done,
      stop: async () => {
        if (!stopped) finish();
        stopped = true;
        await done.catch(() => {});
      },
    };
    scans.add(handle);
    done.catch(() => {}).finally(() => scans.delete(handle));
    return handle;
  }

  /** Reads records after an offset of one partition (tools and tests). */
  async function read(partition: number, afterOffset: number, max: number): Promise<LogRecord[]> {
    const head = (await position()).get(partition) ?? -1;
    if (afterOffset >= head) return [];
    const out: LogRecord[] = [];
    await scan({
      after: new Map([[partition, afterOffset]]),
      until: new Map([[partition, Math.min(head, afterOffset + max)]]),
      maxBatch: max,
      onBatch: async (records) => {
        out.push(...records);
      },
    }).done;
    return out;
  }

  return {
    kind: "kafka",
    append: (events) =>
      events.length === 0 ? Promise.resolve({ position: new Map(), appended: 0 }) : enqueue(events),
    subscribe,
    position,
    read,
    scan: (o) => scan(o),
    firstOffsets: async () => {
      const offsets = await topicOffsets(admin, topic);
      return new Map(offsets.map((o) => [o.partition, Number(o.low)]));
    },
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
            await (producer as Producer).send({
              topic: keysTopic,
              acks: -1,
              messages: userIds.slice(i, i + 1000).map((u) => ({ key: u, value: null })),
            });
          }
        },
      };
    },
    deadLetter: async (records) => {
      if (!producer) return;
      // The record as the topic held it (still encrypted, so erasure reaches it here too), with its
      // key and headers, and why it could not be applied.
      await producer.send({
        topic: `${topic}.dlq`,
        acks: -1,
        messages: records.map((r) => ({
          key: r.original?.key ?? null,
          value: Buffer.from(r.original?.value ?? r.value),
          headers: {
            ...(r.original?.headers ?? {}),
            "feedlab-reason": r.reason,
            "feedlab-source": `${topic}/${r.partition}/${r.offset}`,
          },
        })),
      });
    },
    healthcheck: async () => {
      await admin.describeCluster();
    },
    close: async () => {
      for (const s of [...scans]) await s.stop();
      for (const c of consumers) await c.disconnect();
      await producer?.disconnect();
      await admin.disconnect();
    },
  };
}
