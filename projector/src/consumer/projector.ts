import { EventEmitter } from "node:events";
import type { EventLog, LogPosition, LogRecord, Subscription } from "@feedlab/ingest";
import type { LoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import type { Logger } from "pino";
import {
  applyOneByOne,
  applyRecords,
  type DeadLetter,
  isConcurrencyError,
  isDataError,
  prepareBatch,
} from "./apply.ts";
import { DEFAULT_CONSUMER, lockPartitions, readCheckpoints, writeCheckpoints } from "./checkpoints.ts";
import type { Projection } from "./read-model.ts";
import { PROJECTIONS } from "./read-models/index.ts";

/** Tries of a batch the database aborted for a concurrent one (see applyRetrying). */
const CONCURRENCY_ATTEMPTS = 5;

/** What applying one batch did: the positions reached, its dead letters, the events applied. */
export interface BatchResult {
  readonly next: Map<number, number>;
  readonly dead: DeadLetter[];
  readonly events: LoggedEvent[];
  readonly applied: number;
}

/**
 * Applies one batch of log records in one transaction (every projection and the checkpoint), or
 * throws when it could not: the log delivers the batch again.
 */
export type ApplyBatch = (records: readonly LogRecord[]) => Promise<BatchResult>;

export interface BatchLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
}

export interface BatchApplierOptions {
  readonly db: Knex;
  /** Where the applier says what it did about a failure (a pino logger, or a thread's messenger). */
  readonly logger: BatchLogger;
  /** True on PostgreSQL: other processes may project too, so each batch takes the consumer's lock. */
  readonly multiProcess: boolean;
  readonly consumer?: string;
  readonly projections?: readonly Projection[];
}

/**
 * How the consumer loop applies a batch: every projection and the checkpoint in the same transaction
 * (so a crash neither loses nor doubles an event), skipping offsets already applied. A batch that
 * fails on bad data is applied record by record, and the records that still fail go to
 * `dead_letters` with the reason; the stream moves on.
 */
export function createBatchApplier(options: BatchApplierOptions): ApplyBatch {
  const { db, logger, multiProcess } = options;
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const projections = options.projections ?? PROJECTIONS;

  async function applyInTransaction(records: readonly LogRecord[], isolate: boolean): Promise<BatchResult> {
    const dead: DeadLetter[] = [];
    const events: LoggedEvent[] = [];
    let applied = 0;
    // The statements are built before the transaction holds the database (the embedded one runs one
    // session at a time).
    const prepared = isolate ? undefined : prepareBatch(records, projections);
    const next = await db.transaction(async (trx) => {
      if (multiProcess)
        await lockPartitions(
          trx,
          consumer,
          records.map((r) => r.partition),
        );
      // Offsets at or below the stored checkpoint were applied already (a redelivery): skip them.
      const stored = await readCheckpoints(trx, consumer);
      const fresh = records.filter((r) => r.offset > (stored.get(r.partition) ?? -1));
      const todo = fresh.length === records.length ? records : fresh;
      const reached = new Map(stored);
      for (const r of todo) reached.set(r.partition, Math.max(reached.get(r.partition) ?? -1, r.offset));
      if (todo.length === 0) return reached;
      const r = isolate
        ? await applyOneByOne(trx, todo, projections, consumer, (record, err) =>
            logger.warn(
              { partition: record.partition, offset: record.offset, err },
              "event sent to dead letters",
            ),
          )
        : await applyRecords(trx, todo, projections, consumer, prepared);
      applied = r.applied;
      dead.push(...r.dead);
      events.push(...r.events);
      // Only this batch's partitions: other partitions belong to other projectors (and their
      // checkpoints read above may already be stale), so writing them back would undo their progress.
      const own = new Set(todo.map((r) => r.partition));
      await writeCheckpoints(trx, consumer, new Map([...reached].filter(([p]) => own.has(p))));
      return reached;
    });
    return { next, dead, events, applied };
  }

  /**
   * A batch's transaction, tried again at once when a concurrent batch made the database abort it
   * (a deadlock): failing the batch would make the log's consumer restart, seconds later.
   */
  async function applyRetrying(records: readonly LogRecord[], isolate: boolean) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await applyInTransaction(records, isolate);
      } catch (err) {
        if (!isConcurrencyError(err) || attempt >= CONCURRENCY_ATTEMPTS) throw err;
        logger.info({ err, attempt }, "batch aborted by a concurrent one; trying it again");
      }
    }
  }

  return async (records) => {
    try {
      return await applyRetrying(records, false);
    } catch (err) {
      if (!isDataError(err)) throw err;
      logger.warn({ err, records: records.length }, "batch failed on bad data; applying record by record");
      return await applyRetrying(records, true);
    }
  };
}

export interface ProjectorOptions extends BatchApplierOptions {
  readonly log: Pick<EventLog, "subscribe" | "deadLetter">;
  readonly logger: Logger;
  readonly maxBatch?: number;
  /** Where batches apply (another thread, say); by default here, with createBatchApplier. */
  readonly applyBatch?: ApplyBatch;
}

/**
 * The one consumer loop: reads batches from the log and applies them (`ApplyBatch`), then tells
 * this process's listeners what changed.
 */
export function createProjector(options: ProjectorOptions) {
  const { db, log, logger } = options;
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const projections = options.projections ?? PROJECTIONS;
  const maxBatch = options.maxBatch ?? 2000;
  const applyBatch = options.applyBatch ?? createBatchApplier(options);
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  const reached = new Map<number, number>();
  let subscription: Subscription | null = null;
  let lastError: unknown = null;
  let applied = 0;
  let deadLettered = 0;
  let seeded = false;

  async function onBatch(records: readonly LogRecord[]): Promise<void> {
    const result = await applyBatch(records);
    lastError = null;
    applied += result.applied;
    deadLettered += result.dead.length;
    // Before progress: whoever waits for these positions finds caches told of what they changed.
    if (result.events.length > 0) {
      try {
        progress.emit("applied", result.events);
      } catch (err) {
        logger.error({ err }, "a listener of applied events failed");
      }
    }
    for (const [p, o] of result.next) reached.set(p, Math.max(reached.get(p) ?? -1, o));
    progress.emit("progress");
    if (result.dead.length > 0 && log.deadLetter) {
      // The table keeps them in any case; the topic is for data engineers' tooling.
      await log
        .deadLetter(
          result.dead.map((d) => {
            const value = d.value ?? new Uint8Array();
            return {
              partition: d.place.partition,
              offset: d.place.offset,
              value,
              reason: d.reason,
              original: { key: d.key, value, headers: d.headers ?? {} },
            };
          }),
        )
        .catch((err: unknown) => logger.warn({ err }, "could not publish dead letters to the log"));
    }
  }

  return {
    consumer,
    /** Starts consuming from the stored checkpoint. */
    start(): void {
      if (subscription) return;
      subscription = log.subscribe({
        consumer,
        maxBatch,
        checkpoint: async (partition) => {
          const stored = (await readCheckpoints(db, consumer)).get(partition) ?? -1;
          // What was applied before this process started counts as reached too.
          if (stored > (reached.get(partition) ?? -1)) reached.set(partition, stored);
          seeded = true;
          progress.emit("progress");
          return stored;
        },
        onBatch,
        onError: (err) => {
          lastError = err;
          logger.error({ err }, "projector batch failed; retrying");
        },
      });
      logger.info({ consumer, projections: projections.map((p) => p.name) }, "projector started");
    },

    /** Stops after the batch in progress (draining), idempotent. */
    async stop(): Promise<void> {
      const s = subscription;
      subscription = null;
      await s?.stop();
    },

    /** Throws when the last batch failed (the loop is retrying). */
    healthcheck(): void {
      if (lastError) throw lastError;
    },

    /** True once `reached` includes what was applied before this process started. */
    seeded: () => seeded,
    /** Positions applied by this process's projector. */
    reached: (): LogPosition => reached,
    stats: () => ({ applied, deadLettered }),
    /**
     * Called, in this process, with the events of each batch the projector committed, before the
     * batch's positions count as reached (read-after waiters are released after the listeners ran).
     */
    onApplied(listener: (events: readonly LoggedEvent[]) => void): () => void {
      progress.on("applied", listener);
      return () => progress.off("applied", listener);
    },
    onProgress(listener: () => void): () => void {
      progress.on("progress", listener);
      return () => progress.off("progress", listener);
    },
  };
}

export type Projector = ReturnType<typeof createProjector>;
