import type { EventLog, LogRecord } from "@feedlab/ingest";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { applyOneByOne, applyRecords } from "../apply/apply.ts";
import { deleteConsumerDeadLetters } from "../apply/dead-letters.ts";
import { isDataError } from "../apply/errors.ts";
import {
  DEFAULT_CONSUMER,
  lockPartitions,
  readCheckpoints,
  writeCheckpoints,
} from "../consumer/checkpoints.ts";
import type { Projection } from "../read-model.ts";
import { PROJECTIONS } from "../read-models/index.ts";

export interface ReplayOptions {
  readonly db: Knex;
  readonly log: Pick<EventLog, "position" | "scan" | "firstOffsets">;
  readonly logger: Logger;
  readonly multiProcess: boolean;
  /** Names of the projections to rebuild; all when empty. */
  readonly only?: readonly string[];
  readonly consumer?: string;
  readonly chunk?: number;
  readonly onProgress?: (done: number) => void;
  /** Replays an incomplete log anyway, after telling this (default: refuse with LogIncompleteError). */
  readonly onIncomplete?: (err: LogIncompleteError) => void;
}

/** The named projections and those they require, in the order of PROJECTIONS. */
export function projectionsNamed(names: readonly string[]): Projection[] {
  const unknown = names.filter((n) => !PROJECTIONS.some((p) => p.name === n));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown projection(s) ${unknown.join(", ")}; known: ${PROJECTIONS.map((p) => p.name).join(", ")}`,
    );
  }
  const wanted = new Set<string>();
  const add = (name: string) => {
    if (wanted.has(name)) return;
    wanted.add(name);
    for (const r of PROJECTIONS.find((p) => p.name === name)?.requires ?? []) add(r);
  };
  for (const n of names) add(n);
  return PROJECTIONS.filter((p) => wanted.has(p.name));
}

/**
 * Applies a batch as the live projector does: at once, or, when a record's data makes the batch
 * fail, record by record (a savepoint each), the failing ones going to the dead letters.
 */
async function applyIsolating(
  trx: Knex.Transaction,
  batch: readonly LogRecord[],
  projections: readonly Projection[],
  consumer: string,
): Promise<void> {
  try {
    await trx.transaction((sp) => applyRecords(sp, batch, projections, consumer));
  } catch (err) {
    if (!isDataError(err)) throw err;
    await applyOneByOne(trx, batch, projections, consumer);
  }
}

/** The log no longer holds its oldest records: a replay would rebuild the read models without them. */
export class LogIncompleteError extends Error {
  readonly missing: ReadonlyMap<number, number>;
  constructor(missing: ReadonlyMap<number, number>) {
    const parts = [...missing].map(([p, first]) => `partition ${p} starts at offset ${first}`);
    super(
      `The event log no longer holds its oldest records (${parts.join(", ")}): retention or a delete-records call removed them. A replay would rebuild the read models without those events, so nothing was changed. Keep the read models as they are, or restore the records first (docs/events.md, "Retention").`,
    );
    this.name = "LogIncompleteError";
    this.missing = missing;
  }
}

/**
 * Rebuilds read models from the log in one transaction (holding the consumer's lock, so a running
 * projector waits): empties the chosen projections' tables and re-applies the log with the same
 * code the live projector runs. A full replay covers the whole log and moves the checkpoint to its
 * head; a partial one covers what the live projector had applied.
 */
export async function replay(options: ReplayOptions): Promise<{ records: number; projections: string[] }> {
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const selected =
    options.only && options.only.length > 0 ? projectionsNamed(options.only) : [...PROJECTIONS];
  const full = selected.length === PROJECTIONS.length;
  const chunk = options.chunk ?? 5000;
  let records = 0;
  const missing = new Map([...(await options.log.firstOffsets())].filter(([, first]) => first > 0));
  if (missing.size > 0) {
    const err = new LogIncompleteError(missing);
    if (!options.onIncomplete) throw err;
    options.onIncomplete(err);
  }
  const head = full ? await options.log.position() : null;
  await options.db.transaction(async (trx: Knex.Transaction) => {
    const until = head ?? (await readCheckpoints(trx, consumer));
    if (options.multiProcess) await lockPartitions(trx, consumer, until.keys());
    for (const p of selected) for (const table of p.tables) await trx(table).delete();
    if (full) await deleteConsumerDeadLetters(trx, consumer);
    // Projections do not depend on the order partitions are applied in, so one scan of the whole
    // log (one consumer on Kafka) serves.
    await options.log.scan({
      after: new Map([...until.keys()].map((p) => [p, -1])),
      until,
      maxBatch: chunk,
      via: trx,
      onBatch: async (batch) => {
        await applyIsolating(trx, batch, selected, consumer);
        records += batch.length;
        options.onProgress?.(records);
      },
    }).done;
    if (full) await writeCheckpoints(trx, consumer, until);
  });
  options.logger.info({ records, projections: selected.map((p) => p.name) }, "replay finished");
  return { records, projections: selected.map((p) => p.name) };
}

/** Replays the projections whose rebuild was requested, then forgets the requests. */
export async function runRequestedRebuilds(options: {
  db: Knex;
  log: Pick<EventLog, "scan" | "position" | "firstOffsets">;
  logger: Logger;
  multiProcess: boolean;
}): Promise<string[]> {
  const names = (
    (await options.db("projector_rebuilds").select("projection")) as { projection: string }[]
  ).map((r) => r.projection);
  if (names.length === 0) return [];
  options.logger.info({ projections: names }, "rebuilding read models that this release added");
  await replay({
    db: options.db,
    log: options.log,
    logger: options.logger,
    only: names,
    multiProcess: options.multiProcess,
    // A new read model is built from what the log still holds rather than not at all.
    onIncomplete: (err) =>
      options.logger.error({ err }, "building the new read models from an incomplete log"),
  });
  await options.db("projector_rebuilds").whereIn("projection", names).delete();
  return names;
}
