import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomBytes,
  randomFillSync,
} from "node:crypto";
import type { SealedFields } from "@feedlab/schemas";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { APPEND_LOCK } from "./event-log.ts";

/**
 * Participant keys for the Kafka log (crypto-shredding): Kafka cannot delete one participant's
 * records, so each participant's records are encrypted with a key of their own, and erasure destroys
 * the key. Keys live in the database (`event_log_keys`); a compacted topic mirrors them for tools
 * that read the log without the database (`feedlab tail`), and erasure writes its tombstones there.
 */
export interface Keyring {
  /** Keys to encrypt the participants' records with, created on first use. Erased participants get none. */
  keysFor(userIds: readonly string[]): Promise<Map<string, ParticipantKey>>;
  /**
   * Keys to read the participants' records with. A participant without one was erased. `via` reads
   * them in the caller's transaction (a replay on PGlite holds its only connection).
   */
  find(userIds: readonly string[], via?: Knex.Transaction): Promise<Map<string, ParticipantKey>>;
  /** Destroys the participants' keys in the caller's transaction; answers how many there were. */
  destroy(userIds: readonly string[], via: Knex.Transaction): Promise<number>;
}

/** Where keys are mirrored: `<topic>.keys`, keyed by participant, a null value once destroyed. */
export interface KeyMirror {
  publish(entries: ReadonlyMap<string, Buffer | null>): Promise<void>;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const CACHE_MAX = 100_000;

/** Random IVs drawn 4096 at a time (one call to the random source instead of one per record). */
const ivPool = Buffer.alloc(IV_BYTES * 4096);
let ivNext = ivPool.length;
function nextIv(): Buffer {
  if (ivNext === ivPool.length) {
    randomFillSync(ivPool);
    ivNext = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivNext, ivNext + IV_BYTES));
  ivNext += IV_BYTES;
  return iv;
}

/**
 * A participant's key, prepared once: a KeyObject makes each record's cipher about eight times
 * cheaper to set up than raw key bytes (measured: 1.5 us against 11.7 us).
 */
export type ParticipantKey = KeyObject;
const prepared = (bytes: Buffer): ParticipantKey => createSecretKey(bytes);

/** AES-256-GCM: iv, ciphertext, tag. */
export function seal(key: ParticipantKey, plain: Uint8Array): Buffer {
  const iv = nextIv();
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** The plain bytes of `seal`'s output; throws when the key is wrong or the bytes were altered. */
export function unseal(key: ParticipantKey, sealed: Uint8Array): Buffer {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

/**
 * Seals a record's participant fields with one cipher: `payload` becomes base64 of `seal` (iv,
 * ciphertext, tag) of the login, a NUL, then the payload's JSON text; `login_id` is left empty. (A
 * login never holds NUL: intake refuses it.)
 */
export function sealFields(key: ParticipantKey, f: SealedFields): SealedFields {
  return {
    login_id: "",
    payload: seal(key, Buffer.from(`${f.login_id}\u0000${f.payload}`, "utf8")).toString("base64"),
  };
}

/** The clear fields of `sealFields`' output; throws when the key is wrong or the bytes were altered. */
export function openFields(key: ParticipantKey, f: SealedFields): SealedFields {
  const clear = unseal(key, Buffer.from(f.payload, "base64")).toString("utf8");
  const cut = clear.indexOf("\u0000");
  if (cut < 0) throw new Error("sealed fields without their separator");
  return { login_id: clear.slice(0, cut), payload: clear.slice(cut + 1) };
}

/** The keyring of processes with the database: keys in `event_log_keys`, remembered in-process. */
export function createDbKeyring(db: Knex, mirror: KeyMirror): Keyring {
  const cache = new Map<string, ParticipantKey>();
  const remember = (found: Map<string, Buffer>) => {
    if (cache.size + found.size > CACHE_MAX) cache.clear();
    for (const [u, k] of found) cache.set(u, prepared(k));
  };
  async function load(
    via: Knex | Knex.Transaction,
    userIds: readonly string[],
  ): Promise<Map<string, Buffer>> {
    const rows = rowsOf<{ user_id: string; key: Buffer }>(
      await via.raw(
        "select user_id, key from event_log_keys where user_id in (select value::uuid from json_array_elements_text(?::json))",
        [JSON.stringify(userIds)],
      ),
    );
    return new Map(rows.map((r) => [r.user_id, Buffer.from(r.key)]));
  }
  const missing = (userIds: readonly string[]) => [...new Set(userIds)].filter((u) => !cache.has(u));
  const pick = (userIds: readonly string[]) => {
    const out = new Map<string, ParticipantKey>();
    for (const u of userIds) {
      const k = cache.get(u);
      if (k) out.set(u, k);
    }
    return out;
  };

  return {
    async keysFor(userIds) {
      const wanted = missing(userIds);
      if (wanted.length > 0) {
        const created = new Map<string, Buffer>();
        const found = await db.transaction(async (trx) => {
          // Shared with other appends, exclusive for an erasure: no key is made for someone being erased.
          await trx.raw("select pg_advisory_xact_lock_shared(?)", [APPEND_LOCK]);
          const fresh = wanted.map((u) => ({ user_id: u, key: randomBytes(32).toString("base64") }));
          const inserted = rowsOf<{ user_id: string }>(
            await trx.raw(
              `insert into event_log_keys (user_id, key)
               select r.user_id, decode(r.key, 'base64') from json_to_recordset(?::json) as r(user_id uuid, key text)
               where not exists (select 1 from event_log_erasures x where x.user_id = r.user_id)
               on conflict (user_id) do nothing returning user_id`,
              [JSON.stringify(fresh)],
            ),
          );
          const all = await load(trx, wanted);
          for (const r of inserted) {
            const k = all.get(r.user_id);
            if (k) created.set(r.user_id, k);
          }
          return all;
        });
        // Mirrored before any record encrypted with them is appended, so a reader of the topic has them.
        if (created.size > 0) await mirror.publish(created);
        remember(found);
      }
      return pick(userIds);
    },
    async find(userIds, via) {
      const wanted = missing(userIds);
      if (wanted.length > 0) remember(await load(via ?? db, wanted));
      return pick(userIds);
    },
    async destroy(userIds, via) {
      let n = 0;
      for (let i = 0; i < userIds.length; i += 5000) {
        const chunk = userIds.slice(i, i + 5000);
        n += rowsOf<{ n: string | number }>(
          await via.raw(
            `with gone as (delete from event_log_keys where user_id in
               (select value::uuid from json_array_elements_text(?::json)) returning 1)
             select count(*) as n from gone`,
            [JSON.stringify(chunk)],
          ),
        ).reduce((a, r) => a + Number(r.n), 0);
        for (const u of chunk) cache.delete(u);
      }
      return n;
    },
  };
}

/**
 * The keyring of tools without the database: the mirror topic read to its end. A participant missing
 * after a fresh read was erased.
 */
export function createMirrorKeyring(readMirror: () => Promise<Map<string, Buffer>>): Keyring {
  let keys: Map<string, ParticipantKey> | null = null;
  // Participants still without a key after a fresh read: erased for good, never read for again.
  const gone = new Set<string>();
  return {
    keysFor: () => Promise.reject(new Error("This process reads the log only; it cannot append.")),
    async find(userIds) {
      const unknown = () => userIds.filter((u) => !keys?.has(u) && !gone.has(u));
      if (keys === null || unknown().length > 0) {
        keys = new Map([...(await readMirror())].map(([u, k]) => [u, prepared(k)]));
        for (const u of unknown()) gone.add(u);
      }
      const out = new Map<string, ParticipantKey>();
      for (const u of userIds) {
        const k = keys.get(u);
        if (k) out.set(u, k);
      }
      return out;
    },
    destroy: () => Promise.reject(new Error("This process reads the log only; it cannot erase.")),
  };
}
