import { LogUnavailableError } from "./event-log.ts";
import type { KafkaClient } from "./kafka/client/port.ts";

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

const utf8 = new TextEncoder();
/** Where a key's UTF-8 bytes are written to be hashed: no array made per record. */
const scratch = new Uint8Array(512);

/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`: seed 0x9747b28c, four bytes at a time, little
 * endian) of the first `length` bytes of `data`, as a signed 32-bit integer. Here rather than either
 * client's: a process on one client need not load the other to place a record.
 */
function murmur2(data: Uint8Array, length: number): number {
  const m = 0x5bd1e995;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= (data[whole + 2] as number) << 16;
  if (rest >= 2) h ^= (data[whole + 1] as number) << 8;
  if (rest >= 1) h = Math.imul(h ^ (data[whole] as number), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * The partition of a session's records under a placement. `murmur2` is the Java client's default
 * partitioner for keyed records (murmur2 of the key's UTF-8 bytes, made positive, modulo the
 * partitions): a session's records sit where any standard client would put a record keyed by its id.
 */
export function partitionOf(sessionId: string, partitions: number, placement: Placement = "murmur2"): number {
  if (placement === "fnv1a") return fnv1a(sessionId) % partitions;
  // At most 3 bytes a UTF-16 unit: a key that may not fit the scratch gets an array of its own. 0.10 us a
  // session id here, its bytes' encoding alone 0.05 and kafkajs's partitioner 2.9 (one run, 2026-12-03).
  const bytes = sessionId.length * 3 <= scratch.length ? scratch : utf8.encode(sessionId);
  const length = bytes === scratch ? utf8.encodeInto(sessionId, scratch).written : bytes.length;
  return (murmur2(bytes, length) & 0x7fffffff) % partitions;
}

/**
 * A compacted topic read to its end: the newest value of each key, keys whose newest record is a
 * tombstone left out. The read commits nothing and leaves no consumer group behind.
 */
export async function readCompacted(
  client: KafkaClient,
  topic: string,
  timeoutMs = 30_000,
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const offsets = (await client.offsets(topic)).filter((o) => o.high > o.low);
  if (offsets.length === 0) return out;
  const last = new Map(offsets.map((o) => [o.partition, o.high - 1]));
  const reading = client.read({
    topic,
    from: new Map(offsets.map((o) => [o.partition, o.low])),
    eachBatch: async (partition, messages) => {
      for (const m of messages) {
        const key = m.key?.toString();
        if (!key) continue;
        if (m.value && m.value.length > 0) out.set(key, Buffer.from(m.value));
        else out.delete(key);
      }
      return (messages[messages.length - 1]?.offset ?? -1) < (last.get(partition) ?? 0);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new LogUnavailableError(`the topic ${topic} could not be read within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([reading.ended, timeout]);
  } finally {
    clearTimeout(timer);
    await reading.stop();
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
export async function retentionOf(client: KafkaClient, topic: string): Promise<Retention> {
  const config = await client.topicConfig(topic, ["cleanup.policy", "retention.ms", "retention.bytes"]);
  const value = (name: string) => config.get(name) ?? "";
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
