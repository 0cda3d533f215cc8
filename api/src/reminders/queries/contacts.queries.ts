import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A participant's address for reminders (api.md "Longitudinal studies (wave 4)"), sealed with a key of
 * their own (AES-256-GCM: iv, ciphertext, tag): the address is never stored or backed up in the clear,
 * and both rows go with the participant (ON DELETE CASCADE), so erasure leaves nothing to read.
 */
function seal(key: Buffer, plain: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function unseal(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}

/** The participant's key, made on first use. */
async function keyOf(trx: Knex.Transaction, userId: string): Promise<Buffer> {
  await trx("participant_keys")
    .insert({ user_id: userId, key: randomBytes(32) })
    .onConflict("user_id")
    .ignore();
  const row = (await trx("participant_keys").where({ user_id: userId }).first("key")) as { key: Buffer };
  return Buffer.from(row.key);
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
      address: seal(key, address),
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
        address: unseal(Buffer.from(r.key), Buffer.from(r.address)),
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
