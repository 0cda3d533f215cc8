import { decodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

/**
 * A position in the event log: per partition, the offset of the last record it covers. The
 * embedded log has one partition (0) whose offsets are the table's positions; Kafka has one per
 * topic partition.
 */
export type LogPosition = ReadonlyMap<number, number>;

/** One record read from the log, with where it sits. Its value is still Avro bytes. */
export interface LogRecord {
  readonly partition: number;
  readonly offset: number;
  readonly value: Uint8Array;
  /**
   * The record of an erased participant that the log could not delete (Kafka: its key is destroyed,
   * so its value is empty). Consumers pass over it.
   */
  readonly erased?: true;
  /** The event, where the log had to decode the record to open it (Kafka: encrypted fields). */
  readonly event?: LoggedEvent;
  /**
   * The record as the log holds it, where that differs from `value` (Kafka: still encrypted, with
   * its key and headers): what a dead letter keeps, so that erasure still reaches it.
   */
  readonly original?: {
    readonly key: string | null;
    readonly value: Uint8Array;
    readonly headers: Readonly<Record<string, string>>;
  };
}

/** Headers every Kafka record carries (the embedded log has none). */
export const LOG_HEADERS = {
  /** The event's id: consumers deduplicate on it (delivery is at least once). */
  eventId: "feedlab-event-id",
  /** The participant whose key encrypted the record (absent: a plain record from before keys). */
  key: "feedlab-key",
  /** What the key encrypted: `fields` (login_id and payload) or `record` (the whole value). */
  encryption: "feedlab-encryption",
  /** Hex SHA-256 of the writer's schema (kept for consumers of releases before single-object framing). */
  schema: "feedlab-schema-fingerprint",
} as const;

/** The event of a record: decoded by the log already, or from its Avro value. Throws when undecodable. */
export function eventOf(r: LogRecord): LoggedEvent {
  return r.event ?? decodeLoggedEvent(r.value);
}

/** Whose records an erasure removes: the participants and their sessions (the log's record keys). */
export interface ErasureSubject {
  readonly userIds: readonly string[];
  readonly sessionIds: readonly string[];
}

/** What an erasure did to the log. */
export interface LogErasure {
  /** Records deleted (embedded), or null where records cannot be counted (Kafka: keys destroyed). */
  readonly records: number | null;
  /** Participant keys destroyed (Kafka), else 0. */
  readonly keys: number;
  /** Work to do once the caller's transaction committed (Kafka: tombstones for the keys' mirror). */
  afterCommit(): Promise<void>;
}

export interface AppendResult {
  /** Where the batch's events sit (new ones, and earlier copies of repeated event ids). */
  readonly position: LogPosition;
  /** Events newly written (repeated event ids are not written again). */
  readonly appended: number;
}

/**
 * A consumer's checkpoint store, kept beside the rows it wrote: the last applied offset of a
 * partition, or -1 when nothing was applied.
 */
type CheckpointReader = (partition: number) => Promise<number>;

/** Reading the log without a checkpoint or a consumer group (replay, `feedlab tail`). */
export interface ScanOptions {
  /** Per partition, the last offset already seen: delivery starts after it (-1: from the start). */
  readonly after: LogPosition;
  /** Per partition, the last offset to deliver; without it the scan follows new records until stopped. */
  readonly until?: LogPosition;
  readonly maxBatch: number;
  /** Runs reads in the caller's transaction when the log lives in the same database. */
  readonly via?: Knex.Transaction;
  /** Batches of one partition, in order; the scan waits for each. Throwing ends the scan with that error. */
  readonly onBatch: (records: readonly LogRecord[]) => Promise<void>;
}

export interface Scan {
  /** Settles when every partition reached `until` (or the scan was stopped), or with the scan's error. */
  readonly done: Promise<void>;
  /** Stops the scan (after the batch in progress). Idempotent. */
  stop(): Promise<void>;
}

export interface Subscription {
  /** Stops delivery and waits for the batch in progress to finish. Idempotent. */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** Consumer name (the consumer group for Kafka). */
  readonly consumer: string;
  /** Where to resume: the checkpoint stored with the read models. */
  readonly checkpoint: CheckpointReader;
  /** Largest batch to deliver. */
  readonly maxBatch: number;
  /**
   * Applies a batch and stores its checkpoint in the same transaction. Throwing means the batch was
   * not applied: it is delivered again after a pause.
   */
  readonly onBatch: (records: readonly LogRecord[]) => Promise<void>;
  /** Called with errors of `onBatch` before the retry. */
  readonly onError?: (err: unknown) => void;
}

/**
 * The event log: the source of truth for behaviour. One interface, two adapters (embedded table,
 * Kafka topic). `append` resolves only once the records are durable; records of one session keep
 * their order.
 */
export interface EventLog {
  readonly kind: "embedded" | "kafka";
  append(events: readonly LoggedEvent[]): Promise<AppendResult>;
  subscribe(options: SubscribeOptions): Subscription;
  /** The head: the position of the newest record in each partition. */
  position(): Promise<LogPosition>;
  /**
   * Reads records after `afterOffset` of a partition, in order (for replay and tools). `via` runs
   * the read in a caller's transaction when the log lives in the same database.
   */
  read(partition: number, afterOffset: number, max: number, via?: Knex.Transaction): Promise<LogRecord[]>;
  /** Delivers records after a position, to a limit or following, leaving nothing behind on the log. */
  scan(options: ScanOptions): Scan;
  /**
   * Per partition, the offset of its oldest record still held: 0 unless retention (or a
   * delete-records call) removed the start of the partition. The embedded log never does.
   */
  firstOffsets(): Promise<LogPosition>;
  /**
   * Erases participants' records in the caller's transaction: records them in `event_log_erasures`
   * (nothing of theirs is appended or projected afterwards), then deletes their records (embedded)
   * or destroys their keys (Kafka). Serialised with appends, so none slips in between.
   */
  erase(subject: ErasureSubject, via: Knex.Transaction): Promise<LogErasure>;
  /** Publishes records a consumer could not apply (Kafka: the `<topic>.dlq` topic). Optional. */
  deadLetter?(records: readonly (LogRecord & { reason: string })[]): Promise<void>;
  healthcheck(): Promise<void>;
  close(): Promise<void>;
}

/** Advisory lock serialising appends to the embedded log on PostgreSQL, and erasures with them. */
export const APPEND_LOCK = 0x6c6f_6721; // "log!"

/**
 * Records the participants as erased (idempotent), in the caller's transaction. Appends and
 * projections of their events stop here.
 */
export async function recordErasure(
  via: Knex.Transaction,
  userIds: readonly string[],
  at: Date,
): Promise<void> {
  for (let i = 0; i < userIds.length; i += 5000) {
    await via.raw(
      `insert into event_log_erasures (user_id, erased_at)
       select value::uuid, ? from json_array_elements_text(?::json) on conflict (user_id) do nothing`,
      [at, JSON.stringify(userIds.slice(i, i + 5000))],
    );
  }
}

/**
 * Which of the given participants are erased, as a statement to send with others (`pipelined`);
 * `erasedOf` reads its answer.
 */
export function erasedAmongStatement(via: Knex | Knex.Transaction, userIds: readonly string[]): Knex.Raw {
  return via.raw(
    "select user_id from event_log_erasures where user_id in (select value::uuid from json_array_elements_text(?::json))",
    [JSON.stringify(userIds)],
  );
}

/** The erased participants in the answer of `erasedAmongStatement`. */
export function erasedOf(answer: unknown): Set<string> {
  return new Set(rowsOf<{ user_id: string }>(answer).map((r) => r.user_id));
}

/** True when every partition of `target` has been reached by `reached`. */
export function covers(reached: LogPosition, target: LogPosition): boolean {
  for (const [partition, offset] of target) {
    if ((reached.get(partition) ?? -1) < offset) return false;
  }
  return true;
}

/** The opaque token of a position, as `POST /api/v1/events` returns it: `p1.<partition>-<offset>_...`. */
export function encodePosition(position: LogPosition): string {
  const parts = [...position].sort(([a], [b]) => a - b).map(([p, o]) => `${p}-${o}`);
  return `p1.${parts.join("_")}`;
}

/** Parses a position token; null when it is not one. */
export function decodePosition(token: string): LogPosition | null {
  const m = /^p1\.((?:\d{1,5}-\d{1,16})(?:_\d{1,5}-\d{1,16})*)?$/.exec(token);
  if (!m) return null;
  const map = new Map<number, number>();
  for (const part of (m[1] ?? "").split("_").filter(Boolean)) {
    const [p, o] = part.split("-").map(Number);
    if (p === undefined || o === undefined || !Number.isSafeInteger(o)) return null;
    map.set(p, o);
  }
  return map;
}

/** The log could not take the batch (the broker is down, unreachable or too slow): retry later. */
export class LogUnavailableError extends Error {
  readonly retriable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LogUnavailableError";
  }
}
