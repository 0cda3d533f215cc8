import kafkajs, { type Admin, type Consumer, type Kafka, Partitioners } from "kafkajs";
import { LogUnavailableError } from "./event-log.ts";

// Kafka plumbing the log adapter shares: where a session's records go, reading a compacted topic to
// its end, and consumers that leave nothing behind on the brokers.

/** How a topic places sessions on partitions. */
export type Placement = "murmur2" | "fnv1a";

/** 32-bit FNV-1a of a string: how releases before 0.3 placed a session (`fnv1a(session_id) mod partitions`). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The Java client's default partitioner for keyed records (murmur2 of the key's UTF-8 bytes, made
 * positive, modulo the partitions), as kafkajs implements it: a session's records sit where any
 * standard client would put a record keyed by the same session id.
 */
const javaPartitioner = Partitioners.DefaultPartitioner();
const metadataOf = new Map<number, { partitionId: number; leader: number }[]>();

/**
 * Sessions' murmur2 partitions, remembered: kafkajs computes murmur2 with 64-bit Long objects (about
 * 13 us a key here), and a session sends many events.
 */
const placed = new Map<number, Map<string, number>>();
const PLACED_MAX = 100_000;

/** The partition of a session's records under a placement. */
export function partitionOf(sessionId: string, partitions: number, placement: Placement = "murmur2"): number {
  if (placement === "fnv1a") return fnv1a(sessionId) % partitions;
  let sessions = placed.get(partitions);
  if (!sessions) {
    sessions = new Map();
    placed.set(partitions, sessions);
  }
  const known = sessions.get(sessionId);
  if (known !== undefined) return known;
  let partitionMetadata = metadataOf.get(partitions);
  if (!partitionMetadata) {
    partitionMetadata = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0 }));
    metadataOf.set(partitions, partitionMetadata);
  }
  const partition = javaPartitioner({
    topic: "",
    partitionMetadata: partitionMetadata as never,
    message: { key: sessionId, value: null },
  });
  if (sessions.size >= PLACED_MAX) sessions.clear();
  sessions.set(sessionId, partition);
  return partition;
}

/** A consumer group id no one else uses, for a consumer that reads and leaves. */
export function throwawayGroup(purpose: string): string {
  return `feedlab-${purpose}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Disconnects a throwaway consumer and deletes its group, so tools leave no consumer group behind
 * (the group commits no offsets; deleting an already vanished group is fine).
 */
export async function dropConsumer(admin: Admin, consumer: Consumer, groupId: string): Promise<void> {
  await consumer.disconnect().catch(() => {});
  await admin.deleteGroups([groupId]).catch(() => {});
}

/**
 * A topic's offsets per partition. Just after a topic is created the broker that answers may not yet
 * lead its partitions ("not the leader for that topic-partition"): the metadata is refreshed and
 * the request tried again, for up to about two seconds.
 */
export async function topicOffsets(
  admin: Admin,
  topic: string,
): Promise<Awaited<ReturnType<Admin["fetchTopicOffsets"]>>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (err) {
      const type = (err as { type?: string }).type;
      const retriable =
        type === "NOT_LEADER_FOR_PARTITION" ||
        type === "LEADER_NOT_AVAILABLE" ||
        type === "UNKNOWN_TOPIC_OR_PARTITION";
      if (!retriable || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => {});
    }
  }
}

/**
 * A compacted topic read to its end: the newest value of each key, keys whose newest record is a
 * tombstone left out. Reads with a throwaway consumer and deletes its group afterwards.
 */
export async function readCompacted(
  kafka: Kafka,
  admin: Admin,
  topic: string,
  timeoutMs = 30_000,
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const offsets = await topicOffsets(admin, topic);
  const ends = new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  const pending = new Set(offsets.filter((o) => Number(o.high) > Number(o.low)).map((o) => o.partition));
  if (pending.size === 0) return out;
  const groupId = throwawayGroup("compacted");
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new LogUnavailableError(`the topic ${topic} could not be read within ${timeoutMs / 1000} s`),
          ),
        timeoutMs,
      );
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const key = message.key?.toString();
            if (key) {
              if (message.value && message.value.length > 0) out.set(key, Buffer.from(message.value));
              else out.delete(key);
            }
            if (Number(message.offset) >= (ends.get(partition) ?? 0) - 1) pending.delete(partition);
            if (pending.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await dropConsumer(admin, consumer, groupId);
  }
  return out;
}

/** What a topic's configuration does to old records. */
export interface Retention {
  readonly cleanupPolicy: string;
  /** -1: kept forever. */
  readonly retentionMs: number;
  readonly retentionBytes: number;
}

/** The topic's retention, read from the brokers. */
export async function retentionOf(admin: Admin, topic: string): Promise<Retention> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        // kafkajs's enum (read from its CommonJS exports: Node does not see it as a named export).
        type: kafkajs.ConfigResourceTypes.TOPIC,
        name: topic,
        configNames: ["cleanup.policy", "retention.ms", "retention.bytes"],
      },
    ],
  });
  const entries = described.resources[0]?.configEntries ?? [];
  const value = (name: string) => entries.find((e) => e.configName === name)?.configValue ?? "";
  return {
    cleanupPolicy: value("cleanup.policy") || "delete",
    retentionMs: Number(value("retention.ms") || -1),
    retentionBytes: Number(value("retention.bytes") || -1),
  };
}

/** A sentence saying how the topic loses records, or null when it keeps them all. */
export function retentionProblem(topic: string, r: Retention): string | null {
  const policies = r.cleanupPolicy.split(",").map((p) => p.trim());
  if (policies.includes("compact"))
    return `the topic ${topic} is compacted (cleanup.policy=${r.cleanupPolicy}): Kafka keeps one record per session and deletes the rest`;
  const limits: string[] = [];
  if (r.retentionMs >= 0)
    limits.push(`records older than ${formatDuration(r.retentionMs)} (retention.ms=${r.retentionMs})`);
  if (r.retentionBytes >= 0)
    limits.push(`the oldest records beyond ${r.retentionBytes} bytes a partition (retention.bytes)`);
  if (limits.length === 0) return null;
  return `the topic ${topic} deletes ${limits.join(" and ")}; once it does, replay cannot rebuild the read models. Keep records forever with: kafka-configs --alter --entity-type topics --entity-name ${topic} --add-config retention.ms=-1,retention.bytes=-1`;
}

function formatDuration(ms: number): string {
  const days = ms / 86_400_000;
  if (days >= 1) return `${Number(days.toFixed(1))} days`;
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${Number(hours.toFixed(1))} hours` : `${Math.round(ms / 1000)} s`;
}
