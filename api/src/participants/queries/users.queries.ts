// The participants' table (`users`), for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature, so any feature
// can call it without an import circle.
import type { Knex } from "knex";
import { JSON_IDS } from "../../db/id-list.ts";

type Q = Knex | Knex.Transaction;

/** Whether the participant exists. */
export async function participantExists(db: Q, userId: string): Promise<boolean> {
  return (await db("users").where({ id: userId }).first("id")) !== undefined;
}

/** Up to `limit` of an experiment's participants, or of its simulated ones only. */
export async function participantIdsOf(
  db: Q,
  experimentId: string,
  { limit, simulatedOnly = false }: { limit: number; simulatedOnly?: boolean },
): Promise<string[]> {
  const rows = (await db("users")
    .where(simulatedOnly ? { experiment_id: experimentId, simulated: true } : { experiment_id: experimentId })
    .limit(limit)
    .select("id")) as { id: string }[];
  return rows.map((r) => r.id);
}

/**
 * Erasure's step for participants: deletes them, and with them (ON DELETE CASCADE) their sessions,
 * cookies, survey responses and dismissals and learned recommendations. Returns how many went.
 */
export async function eraseParticipants(trx: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  return trx("users")
    .whereRaw(`id in ${JSON_IDS}`, [JSON.stringify(userIds)])
    .delete();
}

/** Stores a participant's language. */
export async function setParticipantLanguage(trx: Q, userId: string, language: string): Promise<void> {
  await trx("users").where({ id: userId }).update({ language });
}

/** Marks a participant finished with the study, unless they already were. */
export async function markParticipantFinished(db: Q, userId: string, at: Date): Promise<void> {
  await db("users").where({ id: userId }).whereNull("finished_at").update({ finished_at: at });
}

/** Records a participant's consent to a version of the consent text, clearing a decline. */
export async function recordConsent(
  db: Q,
  userId: string,
  consent: { consented_at: Date; consent_version: string },
): Promise<void> {
  await db("users")
    .where({ id: userId })
    .update({ ...consent, consent_declined_at: null });
}

/** Records that a participant declined consent. */
export async function recordConsentDeclined(db: Q, userId: string, at: Date): Promise<void> {
  await db("users").where({ id: userId }).update({ consent_declined_at: at });
}
