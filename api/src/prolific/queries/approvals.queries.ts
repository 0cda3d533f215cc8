// `prolific_approvals` (migration 039): approvals on finish still to reach Prolific. Owned here.
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

export interface ApprovalRow {
  user_id: string;
  experiment_id: string;
  state: "waiting" | "done" | "failed";
  attempts: number;
  next_at: Date;
  last_error: string | null;
  created_at: Date;
  done_at: Date | null;
}

/** Queues a participant's approval on finish (once: a second finish of the same participant is ignored). */
export async function queueApproval(db: Q, userId: string, experimentId: string, at: Date): Promise<void> {
  await db("prolific_approvals")
    .insert({
      user_id: userId,
      experiment_id: experimentId,
      state: "waiting",
      attempts: 0,
      next_at: at,
      created_at: at,
    })
    .onConflict("user_id")
    .ignore();
}

/**
 * Takes the waiting approvals that are due, pushing each one's next try `leaseMs` ahead so that another
 * pass (another process) does not take it meanwhile.
 */
export async function claimDueApprovals(
  db: Knex,
  at: Date,
  leaseMs: number,
  limit = 200,
): Promise<ApprovalRow[]> {
  return db.transaction(async (trx) => {
    const due = (await trx("prolific_approvals")
      .where({ state: "waiting" })
      .where("next_at", "<=", at)
      .orderBy("next_at")
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .select("*")) as ApprovalRow[];
    if (due.length > 0)
      await trx("prolific_approvals")
        .whereIn(
          "user_id",
          due.map((r) => r.user_id),
        )
        .update({ next_at: new Date(at.getTime() + leaseMs) });
    return due;
  });
}

/** Records a try's outcome: done, failed for good, or waiting until `next`. */
export async function settleApproval(
  db: Q,
  userId: string,
  outcome: {
    state: ApprovalRow["state"];
    attempts: number;
    next_at: Date;
    last_error: string | null;
    done_at: Date | null;
  },
): Promise<void> {
  await db("prolific_approvals").where({ user_id: userId }).update(outcome);
}

/** The experiment's approvals on finish, by participant. */
export async function approvalsOf(db: Q, experimentId: string): Promise<Map<string, ApprovalRow>> {
  const rows = (await db("prolific_approvals")
    .where({ experiment_id: experimentId })
    .select("*")) as ApprovalRow[];
  return new Map(rows.map((r) => [r.user_id, r]));
}
