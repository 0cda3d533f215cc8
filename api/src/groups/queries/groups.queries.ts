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

/** The distinct recommenders of the experiments' arms (feed and watch), with their experiment. */
export async function armAlgorithmsOf(
  db: Q,
  experimentIds: readonly string[],
): Promise<{ experiment_id: string; algorithm_feed: string; algorithm_watch: string }[]> {
  return (await db("groups")
    .whereIn("experiment_id", [...experimentIds])
    .distinct("experiment_id", "algorithm_feed", "algorithm_watch")) as {
    experiment_id: string;
    algorithm_feed: string;
    algorithm_watch: string;
  }[];
}

/** An arm with its experiment's name, and the two settings (feed and watch) it was found by. */
export interface ArmUsing {
  readonly group_id: string;
  readonly group_name: string;
  readonly experiment_id: string;
  readonly experiment_name: string;
  readonly feed: string;
  readonly watch: string;
}

/**
 * The arms whose feed or watch setting (their recommenders, or their layouts) is one of `values`
 * (every arm when null), each with its experiment's name, ordered by experiment name then arm name.
 * One query joining the experiments: the order is the database's, by both names.
 */
export async function armsUsing(
  db: Q,
  setting: "algorithm" | "ui",
  values: readonly string[] | null,
): Promise<ArmUsing[]> {
  const [feed, watch] =
    setting === "algorithm" ? ["algorithm_feed", "algorithm_watch"] : ["ui_feed", "ui_watch"];
  const q = db("groups as g")
    .join("experiments as e", "e.id", "g.experiment_id")
    .select(
      "g.id as group_id",
      "g.name as group_name",
      "g.experiment_id",
      "e.name as experiment_name",
      `g.${feed} as feed`,
      `g.${watch} as watch`,
    )
    .orderBy([
      { column: "e.name", order: "asc" },
      { column: "g.name", order: "asc" },
    ]);
  if (values) q.where((w) => w.whereIn(`g.${feed}`, [...values]).orWhereIn(`g.${watch}`, [...values]));
  return (await q) as ArmUsing[];
}
