import { EventEmitter } from "node:events";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { PROJECTIONS, type Projection } from "./projections/index.ts";
import { applyRecords, type DeadLetter, isDataError, type RawRecord, recordDeadLetters } from "./records.ts";

/** The position reached per partition. */
export type Reached = ReadonlyMap<number, number>;

/** The subset of `@feedlab/ingest`'s EventLog the projector needs. */
export interface LogSource {
  subscribe(options: {
    consumer: string;
    checkpoint: (partition: number) => Promise<number>;
    maxBatch: number;
    onBatch: (records: readonly RawRecord[]) => Promise<void>;
    onError?: (err: unknown) => void;
  }): { stop(): Promise<void> };
  /** Publishes dead letters where the log has a place for them (Kafka's `.dlq` topic). */
  deadLetter?(
    records: readonly { partition: number; offset: number; value: Uint8Array; reason: string }[],
  ): Promise<void>;
}

export const DEFAULT_CONSUMER = "projector";

/**
 * Advisory lock key of a consumer's partition: a partition's batches apply one at a time even when
 * several projector processes (or a rebalance) deliver it twice. Two-key form: (consumer, partition).
 */
export function consumerLockKey(consumer: string): number {
  let h = 0x7072_6f6a;
  for (const c of consumer) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/** Takes the consumer's partition locks for the partitions of a batch, in order (no deadlock). */
export async function lockPartitions(
  trx: Knex.Transaction,
  consumer: string,
  partitions: Iterable<number>,
): Promise<void> {
  for (const p of [...new Set(partitions)].sort((a, b) => a - b)) {
    await trx.raw("select pg_advisory_xact_lock(?, ?)", [consumerLockKey(consumer), p]);
  }
}

export async function readCheckpoints(
  db: Knex | Knex.Transaction,
  consumer: string,
): Promise<Map<number, number>> {
  const rows = (await db("consumer_checkpoints").where({ consumer }).select("partition", "log_offset")) as {
    partition: number;
    log_offset: string | number;
  }[];
  return new Map(rows.map((r) => [r.partition, Number(r.log_offset)]));
}

export async function writeCheckpoints(
  trx: Knex.Transaction,
  consumer: string,
  reached: Reached,
): Promise<void> {
  if (reached.size === 0) return;
  await trx("consumer_checkpoints")
    .insert(
      [...reached].map(([partition, log_offset]) => ({
        consumer,
        partition,
        log_offset,
        updated_at: new Date(),
      })),
    )
    .onConflict(["consumer", "partition"])
    .merge(["log_offset", "updated_at"]);
}

export interface ProjectorOptions {
  readonly db: Knex;
  readonly log: LogSource;
  readonly logger: Logger;
  /** True on PostgreSQL: other processes may project too, so each batch takes the consumer's lock. */
  readonly multiProcess: boolean;
  readonly consumer?: string;
  readonly projections?: readonly Projection[];
  readonly maxBatch?: number;
}

/**
 * The one consumer loop: reads batches from the log, applies every projection and stores the
 * checkpoint in the same transaction (so a crash neither loses nor doubles an event), skipping
 * offsets already applied. A batch that fails on bad data is applied record by record, and the
 * records that still fail go to `dead_letters` with the reason; the stream moves on.
 */
export function createProjector(options: ProjectorOptions) {
  const { db, log, logger, multiProcess } = options;
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const projections = options.projections ?? PROJECTIONS;
  const maxBatch = options.maxBatch ?? 2000;
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  const reached = new Map<number, number>();
  let subscription: { stop(): Promise<void> } | null = null;
  let lastError: unknown = null;
  let applied = 0;
  let deadLettered = 0;

  async function applyInTransaction(
    records: readonly RawRecord[],
    isolate: boolean,
  ): Promise<{ next: Map<number, number>; dead: DeadLetter[] }> {
    const dead: DeadLetter[] = [];
    const next = await db.transaction(async (trx) => {
      if (multiProcess)
        await lockPartitions(
          trx,
          consumer,
          records.map((r) => r.partition),
        );
      // Offsets at or below the stored checkpoint were applied already (a redelivery): skip them.
      const stored = await readCheckpoints(trx, consumer);
      const todo = records.filter((r) => r.offset > (stored.get(r.partition) ?? -1));
      const reached = new Map(stored);
      for (const r of todo) reached.set(r.partition, Math.max(reached.get(r.partition) ?? -1, r.offset));
      if (todo.length === 0) return reached;
      if (!isolate) {
        const r = await applyRecords(trx, todo, projections, consumer);
        applied += r.applied;
        dead.push(...r.dead);
      } else {
        for (const record of todo) {
          try {
            await trx.transaction(async (sp) => {
              const r = await applyRecords(sp, [record], projections, consumer);
              applied += r.applied;
              dead.push(...r.dead);
            });
          } catch (err) {
            if (!isDataError(err)) throw err;
            const letter: DeadLetter = {
              place: record,
              eventId: null,
              reason: `cannot apply: ${(err as Error).message}`,
              value: record.value,
            };
            await recordDeadLetters(trx, consumer, [letter]);
            dead.push(letter);
            logger.warn(
              { partition: record.partition, offset: record.offset, err },
              "event sent to dead letters",
            );
          }
        }
      }
      // Only this batch's partitions: other partitions belong to other projectors (and their
      // checkpoints read above may already be stale), so writing them back would undo their progress.
      const own = new Set(todo.map((r) => r.partition));
      await writeCheckpoints(trx, consumer, new Map([...reached].filter(([p]) => own.has(p))));
      return reached;
    });
    return { next, dead };
  }

  async function onBatch(records: readonly RawRecord[]): Promise<void> {
    let result: { next: Map<number, number>; dead: DeadLetter[] };
    try {
      result = await applyInTransaction(records, false);
    } catch (err) {
      if (!isDataError(err)) throw err;
      logger.warn({ err, records: records.length }, "batch failed on bad data; applying record by record");
      result = await applyInTransaction(records, true);
    }
    lastError = null;
    deadLettered += result.dead.length;
    for (const [p, o] of result.next) reached.set(p, Math.max(reached.get(p) ?? -1, o));
    progress.emit("progress");
    if (result.dead.length > 0 && log.deadLetter) {
      // The table keeps them in any case; the topic is for data engineers' tooling.
      await log
        .deadLetter(
          result.dead.map((d) => ({
            partition: d.place.partition,
            offset: d.place.offset,
            value: d.value ?? new Uint8Array(),
            reason: d.reason,
          })),
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
        checkpoint: async (partition) => (await readCheckpoints(db, consumer)).get(partition) ?? -1,
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

    /** Positions applied by this process's projector. */
    reached: (): Reached => reached,
    stats: () => ({ applied, deadLettered }),
    onProgress(listener: () => void): () => void {
      progress.on("progress", listener);
      return () => progress.off("progress", listener);
    },
  };
}

export type Projector = ReturnType<typeof createProjector>;
