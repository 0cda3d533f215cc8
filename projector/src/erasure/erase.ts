import type { Knex } from "knex";
import type { Projection } from "../read-model.ts";
import { PROJECTIONS } from "../read-models/index.ts";

/**
 * Advisory lock between erasures (exclusive) and projection batches (shared): an erasure waits for
 * the batches in flight, and batches after it see that the participants are erased.
 */
export const ERASE_LOCK = 0x6572_6173; // "eras"

/**
 * Erases participants from every read model, in the caller's transaction: each read model removes
 * their rows and takes their part out of its totals. Read models go in reverse order, so the events
 * store (which the others read to know what to take out) goes last. Answers rows touched per table
 * group (read model name).
 */
export async function eraseReadModels(
  sql: Knex.Transaction,
  userIds: readonly string[],
  projections: readonly Projection[] = PROJECTIONS,
): Promise<Record<string, number>> {
  await sql.raw("select pg_advisory_xact_lock(?)", [ERASE_LOCK]);
  const rows: Record<string, number> = {};
  if (userIds.length === 0) return rows;
  for (const p of [...projections].reverse()) {
    if (!p.erase) continue;
    let n = 0;
    for (let i = 0; i < userIds.length; i += 2000) n += await p.erase(sql, userIds.slice(i, i + 2000));
    rows[p.name] = n;
  }
  return rows;
}
