import type { LogRecord } from "@feedlab/ingest";
import type { LoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import { applyOneByOne, applyRecords, prepareBatch } from "../apply/apply.ts";
import type { DeadLetter } from "../apply/dead-letters.ts";
import { isConcurrencyError, isDataError } from "../apply/errors.ts";
import type { Projection } from "../read-model.ts";
import { PROJECTIONS } from "../read-models/index.ts";
import { DEFAULT_CONSUMER, lockPartitions, readCheckpoints, writeCheckpoints } from "./checkpoints.ts";

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

interface BatchLogger {
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
