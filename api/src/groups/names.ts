import type { Db } from "@feedlab/sql";
import { assertExperiment } from "../experiments/exists.ts";

/**
 * An experiment's groups in creation order, their names alone (no counts: a read that sums its own
 * participants needs no other); 404 for an unknown experiment.
 */
export async function groupsOf(db: Db, experimentId: string): Promise<{ id: string; name: string }[]> {
  const [, groups] = await Promise.all([
    assertExperiment(db, experimentId),
    db("groups")
      .where({ experiment_id: experimentId })
      .orderBy("created_at")
      .orderBy("id")
      .select("id", "name"),
  ]);
  return groups as { id: string; name: string }[];
}
