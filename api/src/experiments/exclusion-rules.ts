import type { ExclusionRule } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";

/** An experiment's pre-registered exclusion rules (none for an unknown experiment). */
export async function exclusionRulesOf(db: Db, experimentId: string): Promise<ExclusionRule[]> {
  const row = (await db("experiments").where({ id: experimentId }).first("exclusion_rules")) as
    | { exclusion_rules: unknown }
    | undefined;
  return json<ExclusionRule[]>(row?.exclusion_rules, []);
}
