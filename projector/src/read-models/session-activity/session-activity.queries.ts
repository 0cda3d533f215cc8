import { manyRows, type Sql } from "@feedlab/sql";
import type { Knex } from "knex";
import { ARRIVAL_GAP_CAP_MS } from "./session-activity.projection.ts";

export interface SessionActivity {
  readonly last_received_at: Date;
  readonly event_count: number;
  /** When a SESSION_END ended the session (`endedBySessionEnd`), else null. */
  readonly ended_at: Date | null;
}

/**
 * Whether a session's SESSION_END ended it (docs/events.md, Sessions). Every page unload sends one
 * and a reload goes on in the same session with the next `seq`, so a session ended there only when
 * no event follows its last SESSION_END in `seq` order (the unload beacon may arrive after the
 * reloaded page's first events). A SESSION_END without `seq` (clients before 0.3) ends it.
 */
export function endedBySessionEnd(r: {
  readonly ended_at: Date | null;
  readonly end_seq: number | null;
  readonly max_seq: number | null;
}): boolean {
  if (r.ended_at === null) return false;
  return r.end_seq === null || r.max_seq === null || r.end_seq >= r.max_seq;
}

/** What the log says of a session so far: undefined when none of its events was projected yet. */
export async function sessionActivity(sql: Sql, sessionId: string): Promise<SessionActivity | undefined> {
  const row = (await sql("session_activity")
    .where({ session_id: sessionId })
    .first("last_received_at", "event_count", "ended_at", "end_seq", "max_seq")) as
    | {
        last_received_at: Date;
        event_count: number | string;
        ended_at: Date | null;
        end_seq: number | string | null;
        max_seq: number | string | null;
      }
    | undefined;
  if (!row) return undefined;
  const ended = endedBySessionEnd({
    ended_at: row.ended_at,
    end_seq: row.end_seq === null ? null : Number(row.end_seq),
    max_seq: row.max_seq === null ? null : Number(row.max_seq),
  });
  return {
    last_received_at: row.last_received_at,
    event_count: Number(row.event_count),
    ended_at: ended ? row.ended_at : null,
  };
}

/** A participant's counts for data completeness, summed over their sessions. */
export interface ParticipantCompleteness {
  readonly user_id: string;
  readonly sessions: number;
  /** Every event of their sessions the log holds. */
  readonly events: number;
  /** The events that carried the client's `seq`. */
  readonly numbered: number;
  /** The gaps in each session's `seq` (its highest `seq` less its numbered events, never below 0), summed. */
  readonly missing: number;
  /**
   * The client clock's offset (least arrival less client time) of the session furthest off, the positive
   * one (behind) of two as far off either way; null when no session has one (sessions from before 0.3).
   */
  readonly clock_offset_ms: number | null;
  /** Events whose client time was in the future of their arrival or a day or more before it. */
  readonly implausible_times: number;
}

/** The columns of `completenessSums`, as the database answers them. */
export interface CompletenessColumns {
  readonly sessions: number | string | null;
  readonly events: number | string | null;
  readonly numbered: number | string | null;
  readonly missing: number | string | null;
  readonly furthest: number | string | null;
  readonly implausible_times: number | string | null;
}

/** The names of CompletenessColumns, for a read that names its columns (manyRows). */
export const COMPLETENESS_COLUMNS = [
  "sessions",
  "events",
  "numbered",
  "missing",
  "furthest",
  "implausible_times",
];

/**
 * Per participant of an experiment with a session, their completeness counts summed by the database
 * (`user_id` and CompletenessColumns): a subquery that a read of every participant joins, one row
 * per participant rather than per session (at 10,000 participants the per-session rows cost the read
 * more than the sums).
 */
export function completenessSums(sql: Sql, experimentId: string): Knex.QueryBuilder {
  return sql("session_activity").where({ experiment_id: experimentId }).groupBy("user_id").select(
    "user_id",
    sql.raw("count(*) as sessions"),
    sql.raw("sum(event_count) as events"),
    sql.raw("sum(seq_count) as numbered"),
    // A float8 sum: exact below 2^53, and several times cheaper than the numeric sum of bigints.
    sql.raw(
      "sum(case when max_seq is null then 0 else greatest(0, max_seq - seq_count)::float8 end) as missing",
    ),
    // The offset furthest off, the positive one of two as far off either way, as one max: twice the
    // distance, plus one when behind (>= 0), decoded by completenessOf (an ordered array_agg per
    // participant cost the whole read twice its time).
    sql.raw("max(abs(clock_offset_ms) * 2 + case when clock_offset_ms >= 0 then 1 else 0 end) as furthest"),
    sql.raw("sum(implausible_times) as implausible_times"),
  );
}

/** A participant's completeness counts from `completenessSums`' columns (zeros without a session). */
export function completenessOf(userId: string, r: CompletenessColumns): ParticipantCompleteness {
  const offset = (furthest: number) => (furthest % 2 === 1 ? 1 : -1) * Math.floor(furthest / 2);
  return {
    user_id: userId,
    sessions: Number(r.sessions ?? 0),
    events: Number(r.events ?? 0),
    numbered: Number(r.numbered ?? 0),
    missing: Number(r.missing ?? 0),
    clock_offset_ms: r.furthest === null ? null : offset(Number(r.furthest)),
    implausible_times: Number(r.implausible_times ?? 0),
  };
}

/** Per participant of an experiment with a session, their completeness counts (api.md: completeness). */
export async function participantCompleteness(
  sql: Sql,
  experimentId: string,
): Promise<ParticipantCompleteness[]> {
  const rows = await manyRows<CompletenessColumns & { user_id: string }>(
    sql,
    completenessSums(sql, experimentId),
    ["user_id", ...COMPLETENESS_COLUMNS],
  );
  return rows.map((r) => completenessOf(r.user_id, r));
}

/**
 * A session's time on the pages from its arrival runs (session_time): the gaps between consecutive
 * arrivals, each counted up to 30 s, which is each run's length plus 30 s for every run after the
 * first. `runs` is the jsonb column, an array of `[first, last]` epoch milliseconds (text on some drivers).
 */
function onPagesMs(runs: unknown): number {
  const list = (typeof runs === "string" ? JSON.parse(runs) : runs) as [number, number][] | null;
  if (!list || list.length === 0) return 0;
  return (
    list.reduce((sum, [first, last]) => sum + Number(last) - Number(first), 0) +
    (list.length - 1) * ARRIVAL_GAP_CAP_MS
  );
}

/** What a participant's sessions count toward completion, by the server's clock alone. */
export interface ParticipantProgress {
  /**
   * Sessions of which the server received an event, each begun (its first event's arrival) at least
   * the gap after the previous counted one began.
   */
  readonly sessions: number;
  /** Minutes on the pages: the gaps between arrivals of each session's events, each at most 30 s. */
  readonly minutes: number;
  /**
   * The visit the `current` session makes: the counted sessions up to it, or, before its first event
   * has arrived, the visit it makes if one arrives at `now`.
   */
  readonly visit: number;
  /** Every session with an event, in order of its beginning (its first event's arrival, epoch ms). */
  readonly begun: readonly { readonly session_id: string; readonly began: number }[];
}

/**
 * A participant's progress toward completion (api.md "Trust boundaries (wave 4)"): from the arrival
 * times of their events, never client timestamps, so neither a registered session without events
 * nor a forged timestamp counts. `gapMinutes`: how long after the last counted session's beginning
 * the next may begin to count (0: every session with an event counts).
 */
export async function participantProgress(
  sql: Sql,
  userId: string,
  options: { gapMinutes?: number; current?: string; now?: Date } = {},
): Promise<ParticipantProgress> {
  const gapMs = (options.gapMinutes ?? 0) * 60_000;
  const rows = (await sql("session_time")
    .where({ user_id: userId })
    .orderBy("first_received_at")
    .select("session_id", "first_received_at", "arrival_runs")) as {
    session_id: string;
    first_received_at: Date | string;
    arrival_runs: unknown;
  }[];
  let sessions = 0;
  let lastBegan = Number.NEGATIVE_INFINITY;
  let ms = 0;
  let visit: number | null = null;
  const begun: { session_id: string; began: number }[] = [];
  for (const r of rows) {
    ms += onPagesMs(r.arrival_runs);
    const began = new Date(r.first_received_at).getTime();
    begun.push({ session_id: r.session_id, began });
    if (began - lastBegan >= gapMs) {
      sessions++;
      lastBegan = began;
    }
    if (r.session_id === options.current) visit = sessions;
  }
  const now = (options.now ?? new Date()).getTime();
  visit ??= options.current === undefined ? sessions : sessions + (now - lastBegan >= gapMs ? 1 : 0);
  return { sessions, minutes: ms / 60_000, visit, begun };
}

/** A row of a `participantActivity` subquery. */
export interface ParticipantActivity {
  readonly user_id: string;
  /** Every event the log holds of the participant, over all their sessions (a bigint: text on pg). */
  readonly events: number | string;
  /** Their sessions the server received an event of: the sessions completion counts (a bigint). */
  readonly sessions: number | string;
  /** When the participant's last event arrived. */
  readonly last_seen_at: Date;
}

/**
 * The activity of an experiment's participants (ParticipantActivity), a row for each one with a
 * session, as a subquery for the caller to left-join on `user_id` (a participant without sessions
 * then has null columns): one statement for a list of thousands of participants, which aggregates
 * the experiment's sessions once (the experiment_id index) rather than once per participant: for
 * reads that need every participant's activity (sorting or filtering by it); a page in another order
 * takes PARTICIPANT_ACTIVITY_JOIN. A session belongs to its participant's experiment (intake stamps
 * events from the participant's row).
 */
export function participantActivity(
  sql: Sql,
  experimentId: string,
): Knex.QueryBuilder<Record<string, unknown>, ParticipantActivity[]> {
  return sql("session_activity")
    .where("experiment_id", experimentId)
    .groupBy("user_id")
    .select(
      "user_id",
      sql.raw("sum(event_count) as events"),
      sql.raw("count(*) as sessions"),
      sql.raw("max(last_received_at) as last_seen_at"),
    );
}

/**
 * The activity of each participant a query reaches, as a join for the caller's query over `users as
 * u`: `a.events` (every event the log holds of them, over all their sessions; a bigint, text on pg) and
 * `a.last_seen_at` (when their last event arrived), both null for a participant without sessions.
 * Summed per participant from their own sessions (the user_id index), so a page of a list in join
 * order sums only its own participants' sessions: at 10,000 participants, `participantActivity` joined
 * to the first page of 100 cost the page more than everything else it reads.
 */
export const PARTICIPANT_ACTIVITY_JOIN = `left join lateral (
  select sum(event_count) as events, count(*) as sessions, max(last_received_at) as last_seen_at
  from session_activity sa where sa.user_id = u.id) a on true`;

/**
 * The participants of an experiment with an event that arrived at `since` or later (the monitor's
 * "active now"), each once, as a subquery of `user_id`s for the caller to join to its participants.
 */
export function activeParticipants(
  sql: Sql,
  experimentId: string,
  since: Date,
): Knex.QueryBuilder<Record<string, unknown>, { user_id: string }[]> {
  return sql("session_activity")
    .where("experiment_id", experimentId)
    .where("last_received_at", ">=", since)
    .distinct("user_id");
}

/** A session with an event, as the schedule reads it: whose, and when its first event arrived. */
export interface SessionBeginning {
  readonly user_id: string;
  readonly session_id: string;
  readonly began: number;
}

/**
 * The sessions with an event of an experiment's participants, by participant and in order of their
 * beginning: what a schedule counts (api.md "Longitudinal studies (wave 4)"), read for every
 * participant in one statement.
 */
export async function sessionBeginnings(sql: Sql, experimentId: string): Promise<SessionBeginning[]> {
  const q = sql("session_time")
    .where("experiment_id", experimentId)
    .orderBy([{ column: "user_id" }, { column: "first_received_at" }])
    .select("user_id", "session_id", "first_received_at");
  const rows = await manyRows<{ user_id: string; session_id: string; first_received_at: Date | string }>(
    sql,
    q,
    ["user_id", "session_id", "first_received_at"],
  );
  return rows.map((r) => ({
    user_id: r.user_id,
    session_id: r.session_id,
    began: new Date(r.first_received_at).getTime(),
  }));
}
