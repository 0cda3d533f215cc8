// `prolific_bonuses` (migration 039): bonus plans set up on Prolific and, at most once, paid. Owned here.
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

export interface BonusRow {
  id: string;
  experiment_id: string;
  status: "created" | "paying" | "paid" | "unknown";
  prolific_id: string | null;
  bonuses: unknown;
  count: number;
  total_cents: number;
  created_by: string | null;
  created_at: Date;
  paid_at: Date | null;
}

export async function insertBonus(db: Q, row: BonusRow): Promise<void> {
  await db("prolific_bonuses").insert({ ...row, bonuses: JSON.stringify(row.bonuses) });
}

/** The experiment's plans, newest first. */
export async function bonusesOf(db: Q, experimentId: string): Promise<BonusRow[]> {
  return (await db("prolific_bonuses")
    .where({ experiment_id: experimentId })
    .orderBy("created_at", "desc")
    .select("*")) as BonusRow[];
}

/**
 * Moves a plan from `created` to `paying`, committed before its pay request leaves; false when it is
 * not `created` (paid, being paid, or sent with its answer lost): then no request may be sent.
 */
export async function claimBonusForPay(db: Q, id: string): Promise<boolean> {
  const n = await db("prolific_bonuses").where({ id, status: "created" }).update({ status: "paying" });
  return Number(n) === 1;
}

/** A pay request's outcome: paid, back to created (Prolific refused it), or unknown (its answer lost). */
export async function settleBonus(
  db: Q,
  id: string,
  status: "paid" | "created" | "unknown",
  paidAt: Date | null,
): Promise<BonusRow> {
  const [row] = (await db("prolific_bonuses")
    .where({ id, status: "paying" })
    .update({ status, paid_at: paidAt })
    .returning("*")) as BonusRow[];
  if (!row) throw new Error(`bonus plan ${id} was not being paid`);
  return row;
}
