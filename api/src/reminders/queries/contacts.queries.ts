import { createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { seal, unseal } from "@feedlab/ingest";
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

/**
 * The participant's key, made on first use. Their address for reminders (api.md "Longitudinal studies
 * (wave 4)") is sealed with it as their records on the Kafka log are with theirs (the keyring's
 * AES-256-GCM `seal`): never stored or backed up in the clear, and both rows go with the participant
 * (ON DELETE CASCADE), so erasure leaves nothing to read.
 */
async function keyOf(trx: Knex.Transaction, userId: string): Promise<KeyObject> {
  await trx("participant_keys")
    .insert({ user_id: userId, key: randomBytes(32) })
    .onConflict("user_id")
    .ignore();
  const row = (await trx("participant_keys").where({ user_id: userId }).first("key")) as { key: Buffer };
  return createSecretKey(Buffer.from(row.key));
}

/**
 * Stores (or replaces) the participant's address, sealed, with a new unsubscribe token; giving an
 * address again subscribes again.
 */
export async function storeContact(trx: Knex.Transaction, userId: string, address: string, at: Date) {
  const key = await keyOf(trx, userId);
  await trx("participant_contacts")
    .insert({
      user_id: userId,
      address: seal(key, Buffer.from(address, "utf8")),
      unsubscribe_token: randomBytes(24).toString("base64url"),
      unsubscribed_at: null,
      created_at: at,
    })
    .onConflict("user_id")
    .merge(["address", "unsubscribed_at", "created_at"]);
}

/** Where a reminder goes: the address, opened, and the unsubscribe token. */
export interface Contact {
  readonly user_id: string;
  readonly address: string;
  readonly unsubscribe_token: string;
}

/** The subscribed contacts among the participants, opened (those without one, or unsubscribed, are left out). */
export async function contactsOf(db: Q, userIds: readonly string[]): Promise<Map<string, Contact>> {
  if (userIds.length === 0) return new Map();
  const rows = (await db("participant_contacts as c")
    .join("participant_keys as k", "k.user_id", "c.user_id")
    .whereIn("c.user_id", userIds as string[])
    .whereNull("c.unsubscribed_at")
    .select("c.user_id", "c.address", "c.unsubscribe_token", "k.key")) as {
    user_id: string;
    address: Buffer;
    unsubscribe_token: string;
    key: Buffer;
  }[];
  return new Map(
    rows.map((r) => [
      r.user_id,
      {
        user_id: r.user_id,
        address: unseal(createSecretKey(Buffer.from(r.key)), Buffer.from(r.address)).toString("utf8"),
        unsubscribe_token: r.unsubscribe_token,
      },
    ]),
  );
}

/** Stops the reminders of the token's participant; answers who, or null for an unknown token. */
export async function unsubscribe(db: Q, token: string, at: Date): Promise<string | null> {
  const row = (await db("participant_contacts").where({ unsubscribe_token: token }).first("user_id")) as
    | { user_id: string }
    | undefined;
  if (!row) return null;
  await db("participant_contacts")
    .where({ unsubscribe_token: token })
    .whereNull("unsubscribed_at")
    .update({ unsubscribed_at: at });
  return row.user_id;
}
