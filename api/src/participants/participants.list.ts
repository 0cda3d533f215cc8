import { PARTICIPANT_ACTIVITY_JOIN, participantActivity } from "@feedlab/projector";
import {
  PARTICIPANT_SORTS,
  type ParticipantListQuery,
  type ParticipantPage,
  type ParticipantSort,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { iso, isoOrNull } from "../db/present.ts";
import { badRequest } from "../http/errors.ts";
import { participantAssignment } from "./assignment/stored.ts";
import { joinSignature } from "./join-signature.ts";
import { participantStatus } from "./participants.export.ts";

/** A participant whose last event arrived this recently is "active now". */
const ACTIVE_MS = 5 * 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Below every real time in microseconds: where a participant never seen sorts by last_seen_at. */
const NEVER_US = "-4611686018427387904";

/**
 * Each order's key as SQL, and the type its cursor value is read back as. Times are microseconds
 * since the epoch (exact, and a cursor value the server can check before the database reads it). A
 * participant with no event sorts by last_seen_at as if seen before anyone: last when the newest
 * come first.
 */
const KEYS: Record<
  "joined_at" | "last_seen_at" | "login_id",
  { sql: string; cast: string; order?: { sql: string; from: string } }
> = {
  joined_at: {
    sql: "(extract(epoch from u.created_at) * 1000000)::bigint",
    cast: "bigint",
    // Ordered by the column itself, so the join-order index (migration 031) gives the first rows.
    order: { sql: "u.created_at", from: "timestamptz 'epoch' + ?::bigint * interval '1 microsecond'" },
  },
  last_seen_at: {
    sql: `coalesce((extract(epoch from a.last_seen_at) * 1000000)::bigint, ${NEVER_US})`,
    cast: "bigint",
  },
  login_id: { sql: "u.login_id", cast: "text" },
};

/** Where a page ends: the order it was read in, the last row's key (as text, exact) and id. */
interface Place {
  readonly sort: ParticipantSort;
  readonly key: string;
  readonly id: string;
}

const encodeCursor = (p: Place): string =>
  Buffer.from(JSON.stringify([p.sort, p.key, p.id])).toString("base64url");

/** Whether `key` is a value the order `sort` gives: a bigint for times, a login id's text. */
function fits(sort: ParticipantSort, key: unknown): key is string {
  if (typeof key !== "string") return false;
  if (sort.endsWith("login_id")) return key.length <= 255 && !key.includes("\u0000");
  return /^-?\d{1,19}$/.test(key) && BigInt(key) >= BigInt(NEVER_US) && BigInt(key) < 2n ** 63n;
}

/** The place a cursor names; 400 `invalid_cursor` for one this server did not make for `sort`. */
function decodeCursor(cursor: string, sort: ParticipantSort): Place {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString());
  } catch {
    parts = null;
  }
  const [s, key, id] = Array.isArray(parts) ? parts : [];
  if (typeof s === "string" && s !== sort && (PARTICIPANT_SORTS as readonly string[]).includes(s))
    throw badRequest(
      "invalid_cursor",
      `cursor continues a list sorted by ${s}: ask for the first page to sort by ${sort}`,
    );
  if (s !== sort || !fits(sort, key) || typeof id !== "string" || !UUID.test(id))
    throw badRequest("invalid_cursor", "cursor is not a next_cursor this server gave");
  return { sort, key, id };
}

/** The condition of a status filter, as participantStatus decides it. */
function whereStatus(q: Knex.QueryBuilder, status: NonNullable<ParticipantListQuery["status"]>): void {
  const declined = (w: Knex.QueryBuilder) =>
    w.whereNotNull("u.consent_declined_at").whereNull("u.consented_at");
  if (status === "finished") {
    q.whereNotNull("u.finished_at");
    return;
  }
  q.whereNull("u.finished_at");
  if (status === "lapsed") {
    q.whereNotNull("u.lapsed_at");
    return;
  }
  q.whereNull("u.lapsed_at");
  if (status === "declined") q.where(declined);
  else {
    q.whereNot(declined);
    q.whereRaw(`coalesce(a.events, 0) ${status === "started" ? ">" : "="} 0`);
  }
}

/** A participant's row of the users table. */
export interface UserRow {
  id: string;
  experiment_id: string;
  login_id: string;
  /** Null until assigned (a study that assigns on the pre survey's answers). */
  group_id: string | null;
  created_at: Date;
  simulated: boolean;
}

interface Row extends UserRow {
  assignment: unknown;
  consented_at: Date | null;
  consent_declined_at: Date | null;
  finished_at: Date | null;
  lapsed_at: Date | null;
  excluded_at: Date | null;
  excluded_reason: string | null;
  sessions: number | string;
  events: number | string;
  last_seen_at: Date | null;
  surveys_answered: number | string;
  surveys_dismissed: number | string;
  sort_key: string;
}

/**
 * A page of an experiment's participants (api.md "Lists at study scale"): filtered, in the chosen
 * order with ties by id, starting after the cursor's participant, so a page starts where the last
 * ended whoever joined since. `total` counts every match. Each participant with their place in the
 * study flow, sessions, events, last activity, surveys answered and dismissed, any exclusion, and
 * whether they are simulated.
 */
export async function participantPage(
  db: Knex,
  experimentId: string,
  query: ParticipantListQuery,
  options: { now: Date; joinSecret: string | null; userId?: string },
): Promise<ParticipantPage> {
  const sort = query.sort ?? "joined_at";
  const desc = sort.startsWith("-");
  const key = KEYS[(desc ? sort.slice(1) : sort) as keyof typeof KEYS];
  const limit = query.limit ?? 100;
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor, sort);

  // Sorting or filtering by activity (started, joined) needs every participant's: summed at once for
  // the experiment. Other pages sum only their own participants', and the count needs none.
  const everyonesActivity =
    query.status === "started" || query.status === "joined" || sort.endsWith("last_seen_at");
  const matching = db("users as u").where("u.experiment_id", experimentId);
  if (everyonesActivity)
    matching.leftJoin(participantActivity(db, experimentId).as("a"), "a.user_id", "u.id");
  if (options.userId !== undefined) matching.where("u.id", options.userId);
  if (query.simulated !== undefined) matching.where("u.simulated", query.simulated);
  if (query.group_id !== undefined) matching.where("u.group_id", query.group_id);
  if (query.q !== undefined && query.q.trim() !== "")
    matching.whereRaw("position(lower(?) in lower(u.login_id)) > 0", [query.q.trim()]);
  if (query.status !== undefined) whereStatus(matching, query.status);

  const page = matching.clone();
  if (!everyonesActivity) page.joinRaw(PARTICIPANT_ACTIVITY_JOIN);
  const order = key.order?.sql ?? key.sql;
  if (after)
    page.whereRaw(`(${order}, u.id) ${desc ? "<" : ">"} (${key.order?.from ?? `?::${key.cast}`}, ?::uuid)`, [
      after.key,
      after.id,
    ]);
  const direction = desc ? "desc" : "asc";
  const [rows, counted] = await Promise.all([
    page
      .orderByRaw(`${order} ${direction}, u.id ${direction}`)
      .limit(limit + 1)
      .select(
        "u.*",
        db.raw(`(${key.sql})::text as sort_key`),
        db.raw("coalesce(a.sessions, 0) as sessions"),
        db.raw("coalesce(a.events, 0) as events"),
        "a.last_seen_at",
        db.raw("(select count(*) from survey_responses r where r.user_id = u.id) as surveys_answered"),
        db.raw("(select count(*) from survey_dismissals d where d.user_id = u.id) as surveys_dismissed"),
      ) as Promise<Row[]>,
    matching.clone().count({ n: "*" }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const at = options.now.getTime();
  return {
    items: items.map((r) => ({
      user_id: r.id,
      login_id: r.login_id,
      group_id: r.group_id,
      created_at: iso(r.created_at),
      status: participantStatus({ ...r, events: Number(r.events) }),
      consented_at: isoOrNull(r.consented_at),
      declined_at: isoOrNull(r.consent_declined_at),
      finished_at: isoOrNull(r.finished_at),
      sessions: Number(r.sessions),
      events: Number(r.events),
      last_seen_at: isoOrNull(r.last_seen_at),
      active_now: r.last_seen_at !== null && at - new Date(r.last_seen_at).getTime() < ACTIVE_MS,
      surveys_answered: Number(r.surveys_answered),
      surveys_dismissed: Number(r.surveys_dismissed),
      excluded_at: isoOrNull(r.excluded_at),
      excluded_reason: r.excluded_reason,
      join_sig:
        options.joinSecret === null ? null : joinSignature(options.joinSecret, experimentId, r.login_id),
      simulated: r.simulated === true,
      assignment: r.group_id === null ? null : participantAssignment(r.assignment, r.created_at),
    })),
    next_cursor: rows.length > limit && last ? encodeCursor({ sort, key: last.sort_key, id: last.id }) : null,
    total: Number(counted?.n ?? 0),
  };
}
