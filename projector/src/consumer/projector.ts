import { EventEmitter } from "node:events";
import type { EventLog, LogPosition, LogRecord, Subscription } from "@feedlab/ingest";
import type { LoggedEvent } from "@feedlab/schemas";
import type { Logger } from "pino";
import { PROJECTIONS } from "../read-models/index.ts";
import { type ApplyBatch, type BatchApplierOptions, createBatchApplier } from "./batch-applier.ts";
import { DEFAULT_CONSUMER, readCheckpoints } from "./checkpoints.ts";

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
