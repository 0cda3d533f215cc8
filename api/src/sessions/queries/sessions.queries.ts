// The sessions' table, for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature.
import type { Knex } from "knex";
import { JSON_IDS } from "../../db/id-list.ts";

/** The ids of the participants' sessions (erasure reads them before the participants go). */
export async function sessionIdsOf(trx: Knex.Transaction, userIds: readonly string[]): Promise<string[]> {
  const rows = (await trx("sessions")
    .whereRaw(`user_id in ${JSON_IDS}`, [JSON.stringify(userIds)])
    .select("id")) as { id: string }[];
  return rows.map((r) => r.id);
}
