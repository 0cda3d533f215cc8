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

/** The participant's session before this one (the newest other); undefined for their first. */
export async function previousSessionOf(
  db: Knex,
  userId: string,
  sessionId: string,
): Promise<string | undefined> {
  const row = await db("sessions")
    .where({ user_id: userId })
    .whereNot({ id: sessionId })
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .first<{ id: string } | undefined>("id");
  return row?.id;
}

/** The session's id as stored, when it is the participant's; undefined otherwise. */
export async function ownSession(db: Knex, sessionId: string, userId: string): Promise<string | undefined> {
  const row = await db("sessions")
    .where({ id: sessionId, user_id: userId })
    .first<{ id: string } | undefined>("id");
  return row?.id;
}
