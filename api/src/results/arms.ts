import type { Db } from "../db/db.ts";
import { assertExperiment } from "../experiments/exists.ts";

/** An experiment's group as the results read it, with the participants assigned to it. */
export interface Arm {
  readonly id: string;
  readonly name: string;
  readonly weight: number;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  readonly participants: number;
}

/** An experiment's groups in creation order, with their participants; 404 for an unknown experiment. */
export async function armsOf(db: Db, experimentId: string): Promise<Arm[]> {
  await assertExperiment(db, experimentId);
  const rows = (await db("groups as g")
    .leftJoin("users as u", "u.group_id", "g.id")
    .where("g.experiment_id", experimentId)
    .groupBy("g.id", "g.name", "g.weight", "g.algorithm_feed", "g.algorithm_watch", "g.created_at")
    .orderBy("g.created_at")
    .orderBy("g.id")
    .select(
      "g.id",
      "g.name",
      "g.weight",
      "g.algorithm_feed",
      "g.algorithm_watch",
      db.raw("count(u.id) as participants"),
    )) as (Omit<Arm, "weight" | "participants"> & {
    weight: number | string;
    participants: number | string;
  })[];
  return rows.map((r) => ({ ...r, weight: Number(r.weight), participants: Number(r.participants) }));
}
