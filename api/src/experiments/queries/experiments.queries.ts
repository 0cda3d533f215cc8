// The experiments' table, for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature, so any feature
// can call it without an import circle.
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

/** Whether the experiment exists. */
export async function experimentExists(db: Q, id: string): Promise<boolean> {
  return (await db("experiments").where({ id }).first("id")) !== undefined;
}

/** Erasure's last step for an experiment, once its participants are gone: deletes it. */
export async function eraseExperiment(trx: Knex.Transaction, id: string): Promise<void> {
  await trx("experiments").where({ id }).delete();
}

/** Columns of the experiment's row (every column when none is named); undefined when it does not exist. */
export async function experimentRow<T>(db: Q, id: string, ...columns: string[]): Promise<T | undefined> {
  const q = db("experiments").where({ id });
  return (await (columns.length > 0 ? q.first(...columns) : q.first())) as T | undefined;
}

/**
 * Columns of the experiment's row, locked (FOR UPDATE) until the transaction ends, so what is decided
 * under the lock (a join's assignment, a pool's replacement) sees every other such decision before it.
 */
export async function lockExperiment<T>(
  trx: Knex.Transaction,
  id: string,
  ...columns: string[]
): Promise<T | undefined> {
  return (await trx("experiments")
    .where({ id })
    .forUpdate()
    .first(...columns)) as T | undefined;
}

/** Every change made to the experiment's exclusion rules, oldest first. */
export async function exclusionRuleChangesOf(
  db: Q,
  experimentId: string,
): Promise<{ at: Date; admin: string | null; status: string; before: unknown; after: unknown }[]> {
  return (await db("exclusion_rule_changes")
    .where({ experiment_id: experimentId })
    .orderBy("seq")
    .select("at", "admin", "status", "before", "after")) as {
    at: Date;
    admin: string | null;
    status: string;
    before: unknown;
    after: unknown;
  }[];
}

/** The ids of the experiments in this status. */
export async function experimentIdsWithStatus(db: Q, status: string): Promise<string[]> {
  return db("experiments").where({ status }).pluck("id");
}

/** Keeps what the assignment method carries from one newcomer to the next (under the experiment's lock). */
export async function saveAssignmentState(trx: Knex.Transaction, id: string, state: unknown): Promise<void> {
  await trx("experiments")
    .where({ id })
    .update({ assignment_state: JSON.stringify(state) });
}
