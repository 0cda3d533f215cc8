import { createHmac, randomBytes } from "node:crypto";
import { RECRUITING_PARAMETERS } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import { participantsOf } from "../participants/queries/users.queries.ts";

/**
 * The app_settings key of the secret that pseudonyms derive from: 32 random bytes made on the first
 * pseudonymized package, kept in the database (and so in its backups). Without it a pseudonym cannot
 * be traced back to a login id; deleting it gives every participant a new pseudonym.
 */
const SECRET_SETTING = "package_pseudonym_secret";

/**
 * What a pseudonymized package leaves out wherever it is a key (payload fields) or a URL's query
 * parameter (join links in SESSION_START, PAGE_LOAD, NAVIGATION...): the recruiting platforms' ids,
 * the login id itself and the join link's signature.
 */
const DROPPED_NAMES: readonly string[] = [...RECRUITING_PARAMETERS, "login_id", "sig"];
const DROPPED_KEYS = new Set(DROPPED_NAMES);
/** A dropped parameter and the `&` after it, wherever a `?` or `&` comes before it. */
const DROPPED_PARAMS = new RegExp(`(?<=[?&])(?:${DROPPED_NAMES.join("|")})=[^&#\\s"']*&?`, "g");
/** A `?` or `&` left at the end of a URL once its last parameters went. */
const DANGLING = /[?&](?=[#\s"']|$)/g;

/** Values shorter than this are not searched for in free text: they would match ordinary words. */
const MIN_SEARCHED_LENGTH = 3;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The app's pseudonym secret, made on first use (two packages made at once agree on one). */
async function pseudonymSecret(db: Db): Promise<string> {
  const read = async () =>
    json<{ secret?: string }>(
      (
        (await db("app_settings").where({ key: SECRET_SETTING }).first("value")) as
          | { value: unknown }
          | undefined
      )?.value,
      {},
    ).secret;
  const existing = await read();
  if (existing) return existing;
  await db("app_settings")
    .insert({
      key: SECRET_SETTING,
      value: JSON.stringify({ secret: randomBytes(32).toString("hex") }),
      updated_at: new Date(),
    })
    .onConflict("key")
    .ignore();
  const made = await read();
  if (!made) throw new Error("the pseudonym secret could not be stored");
  return made;
}

/** A participant as pseudonymization sees them: their login id and the recruiting ids they joined with. */
interface Identity {
  readonly pseudonym: string;
  /** Whole-token matches of the login id and recruiting ids, each with what replaces it. */
  readonly replacements: readonly (readonly [RegExp, string])[];
}

/**
 * Pseudonymization of an experiment's package (docs/packages.md): each login id becomes
 * `p-` and 16 hex digits of HMAC-SHA256(login id) under a key of the experiment (HMAC of the app's
 * secret and the experiment id), so a participant has the same pseudonym in every file and in every
 * download, and a pseudonym of one study says nothing about another's. Recruiting ids go: their
 * columns, payload fields of their names, URL parameters, and the participant's own ids (and login
 * id) wherever they stand as a whole word in their events' text, their text answers or an exclusion
 * reason.
 */
export async function createPseudonymizer(db: Db, experimentId: string) {
  const key = createHmac("sha256", await pseudonymSecret(db))
    .update(`feedlab-package-pseudonyms:${experimentId}`, "utf8")
    .digest();
  const pseudonymOf = (loginId: string) =>
    `p-${createHmac("sha256", key).update(loginId, "utf8").digest("hex").slice(0, 16)}`;
  const users = await participantsOf<{ id: string; login_id: string; recruiting: unknown }>(
    db,
    experimentId,
    "id",
    "login_id",
    "recruiting",
  );
  const identities = new Map<string, Identity>();
  for (const u of users) {
    const pseudonym = pseudonymOf(u.login_id);
    const found = (value: string, by: string) =>
      [value, encodeURIComponent(value)]
        .filter((v, i, all) => v.length >= MIN_SEARCHED_LENGTH && all.indexOf(v) === i)
        .map((v) => [new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(v)}(?![A-Za-z0-9])`, "g"), by] as const);
    const recruiting = Object.values(json<Record<string, string>>(u.recruiting, {})).filter(
      (v) => typeof v === "string" && v !== "",
    );
    identities.set(u.id, {
      pseudonym,
      replacements: [...found(u.login_id, pseudonym), ...recruiting.flatMap((v) => found(v, ""))],
    });
  }

  /** Text with the participant's ids replaced and the dropped URL parameters gone. */
  function scrubText(userId: string, text: string): string {
    let out = text;
    if (text.includes("=")) {
      const kept = text.replace(DROPPED_PARAMS, "");
      if (kept !== text) out = kept.replace(DANGLING, "");
    }
    for (const [pattern, by] of identities.get(userId)?.replacements ?? []) out = out.replace(pattern, by);
    return out;
  }

  function scrubValue(userId: string, value: unknown): unknown {
    if (typeof value === "string") return scrubText(userId, value);
    if (Array.isArray(value)) return value.map((v) => scrubValue(userId, v));
    if (value !== null && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !DROPPED_KEYS.has(k))
          .map(([k, v]) => [k, scrubValue(userId, v)]),
      );
    return value;
  }

  return {
    /** The participant's pseudonym (a participant unknown here gets one from their login id). */
    pseudonym: (userId: string, loginId: string): string =>
      identities.get(userId)?.pseudonym ?? pseudonymOf(loginId),
    /** A payload without recruiting fields, dropped URL parameters or the participant's ids. */
    payload: (userId: string, payload: Record<string, unknown>) =>
      scrubValue(userId, payload) as Record<string, unknown>,
    /** Free text (a text answer, an exclusion reason) without the participant's ids. */
    text: (userId: string, text: string | null): string | null =>
      text === null ? null : scrubText(userId, text),
    /** Whether a column is left out: the recruiting parameters' (the login id's is pseudonymized). */
    dropsColumn: (name: string) => (RECRUITING_PARAMETERS as readonly string[]).includes(name),
  };
}

export type Pseudonymizer = Awaited<ReturnType<typeof createPseudonymizer>>;
