import type { Db } from "../db/db.ts";
import { assertExperiment } from "../experiments/exists.ts";

/** An experiment's group as the results read it, with the participants assigned to it. */
export interface Arm {
  readonly id: string;
  readonly name: string;
  readonly weight: number;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  /** Participants assigned to the group and analysed (not excluded by a researcher). */
  readonly participants: number;
  /** Participants a researcher excluded from analysis. */
  readonly excluded: number;
  /** Every participant assigned to the group (what randomisation checks count). */
  readonly assigned: number;
}

/** The participants of an experiment a researcher excluded from analysis. */
export async function excludedUsers(db: Db, experimentId: string): Promise<Set<string>> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .whereNotNull("excluded_at")
    .select("id")) as { id: string }[];
  return new Set(rows.map((r) => r.id));
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
      db.raw("count(u.id) filter (where u.excluded_at is null) as participants"),
      db.raw("count(u.id) filter (where u.excluded_at is not null) as excluded"),
    )) as (Omit<Arm, "weight" | "participants" | "excluded" | "assigned"> & {
    weight: number | string;
    participants: number | string;
    excluded: number | string;
  })[];
  return rows.map((r) => ({
    ...r,
    weight: Number(r.weight),
    participants: Number(r.participants),
    excluded: Number(r.excluded),
    assigned: Number(r.participants) + Number(r.excluded),
  }));
}
