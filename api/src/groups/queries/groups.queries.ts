// The arms' table (`groups`), for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature.
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

/** Columns of the arm's row; undefined when it does not exist. */
export async function armRow<T>(db: Q, id: string, ...columns: string[]): Promise<T | undefined> {
  return (await db("groups")
    .where({ id })
    .first(...columns)) as T | undefined;
}

/** Whether the arm is one of the experiment's. */
export async function isArmOf(db: Q, experimentId: string, groupId: string): Promise<boolean> {
  return (await db("groups").where({ id: groupId, experiment_id: experimentId }).first("id")) !== undefined;
}

/** Columns of the experiment's arms, oldest first (ties by id). */
export async function armsOf<T>(db: Q, experimentId: string, ...columns: string[]): Promise<T[]> {
  return (await db("groups")
    .where({ experiment_id: experimentId })
    .orderBy("created_at")
    .orderBy("id")
    .select(...columns)) as T[];
}

/** How many arms the experiment has. */
export async function armCount(db: Q, experimentId: string): Promise<number> {
  const rows = await db("groups").where({ experiment_id: experimentId }).count<{ n: string }[]>("* as n");
  return Number(rows[0]?.n ?? 0);
}
