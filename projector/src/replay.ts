import type { EventLog } from "@feedlab/ingest";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { applyRecords } from "./apply.ts";
import { DEFAULT_CONSUMER, lockPartitions, readCheckpoints, writeCheckpoints } from "./checkpoints.ts";
import type { Projection } from "./read-model.ts";
import { PROJECTIONS } from "./read-models/index.ts";

export interface ReplayOptions {
  readonly db: Knex;
  readonly log: Pick<EventLog, "position" | "read">;
  readonly logger: Logger;
  readonly multiProcess: boolean;
  /** Names of the projections to rebuild; all when empty. */
  readonly only?: readonly string[];
  readonly consumer?: string;
  readonly chunk?: number;
  readonly onProgress?: (done: number) => void;
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
  const head = full ? await options.log.position() : null;
  await options.db.transaction(async (trx: Knex.Transaction) => {
    const until = head ?? (await readCheckpoints(trx, consumer));
    if (options.multiProcess) await lockPartitions(trx, consumer, until.keys());
    for (const p of selected) for (const table of p.tables) await trx(table).delete();
    if (full) await trx("dead_letters").where({ consumer }).delete();
    for (const [partition, last] of until) {
      let after = -1;
      while (after < last) {
        const batch = (await options.log.read(partition, after, chunk, trx)).filter((r) => r.offset <= last);
        if (batch.length === 0) break;
        await applyRecords(trx, batch, selected, consumer);
        after = batch[batch.length - 1]?.offset ?? last;
        records += batch.length;
        options.onProgress?.(records);
      }
    }
    if (full) await writeCheckpoints(trx, consumer, until);
  });
  options.logger.info({ records, projections: selected.map((p) => p.name) }, "replay finished");
  return { records, projections: selected.map((p) => p.name) };
}
