import { manyRows, type Sql } from "@feedlab/sql";
import type { Knex } from "knex";

/** A participant's measures from the events (docs/quality.md), summed over their sessions. */
export interface EventQuality {
  readonly user_id: string;
  readonly active_seconds: number;
  readonly hidden_seconds: number;
  /** Seconds from each session's first to its last event, summed. */
  readonly visit_seconds: number;
  readonly watch_seconds: number;
  readonly visible_watch_seconds: number;
  readonly pointer_events: number;
  /** The widest viewport of their sessions' SESSION_START, null without one. */
  readonly viewport_width: number | null;
}

type Num = number | string | null;

/** The columns `joinEventQuality` adds, as the database answers them (all null without events). */
export interface EventQualityColumns {
  readonly q_active_ms: Num;
  readonly q_hidden_ms: Num;
  readonly q_watch_ms: Num;
  readonly q_visible_watch_ms: Num;
  readonly q_visit_ms: Num;
  readonly q_pointer_events: Num;
  readonly q_viewport_width: Num;
}

/** The sums a participant's row keeps, each selected as `q_<name>`. */
const SUMS = [
  "active_ms",
  "hidden_ms",
  "watch_ms",
  "visible_watch_ms",
  "visit_ms",
  "pointer_events",
  "viewport_width",
];

/** The names of EventQualityColumns, for a read that names its columns (manyRows). */
export const EVENT_QUALITY_COLUMNS = SUMS.map((c) => `q_${c}`);

/**
 * Left-joins each participant's event sums (`quality_participants`, one row each however many
 * sessions they had) to a query whose participant id is `userId`, and selects them as
 * EventQualityColumns: a read of every participant of a study joins them in the same statement.
 */
export function joinEventQuality(sql: Sql, q: Knex.QueryBuilder, userId: string): Knex.QueryBuilder {
  return q
    .leftJoin("quality_participants as qp", "qp.user_id", userId)
    .select(...SUMS.map((c) => sql.ref(`qp.${c}`).as(`q_${c}`)));
}

/** A participant's event measures from the columns `joinEventQuality` added; null without events. */
export function eventQualityOf(userId: string, r: EventQualityColumns): EventQuality | null {
  if (r.q_active_ms === null) return null;
  return {
    user_id: userId,
    active_seconds: Number(r.q_active_ms) / 1000,
    hidden_seconds: Number(r.q_hidden_ms) / 1000,
    visit_seconds: Number(r.q_visit_ms) / 1000,
    watch_seconds: Number(r.q_watch_ms) / 1000,
    visible_watch_seconds: Number(r.q_visible_watch_ms) / 1000,
    pointer_events: Number(r.q_pointer_events),
    viewport_width: r.q_viewport_width === null ? null : Number(r.q_viewport_width),
  };
}

/**
 * Per participant of an experiment with events, their event measures (every participant, simulated
 * ones too: the caller leaves out whom it leaves out), or only `userId`'s.
 */
export async function eventQuality(sql: Sql, experimentId: string, userId?: string): Promise<EventQuality[]> {
  const q = sql("quality_participants as p").where("p.experiment_id", experimentId);
  if (userId !== undefined) q.where("p.user_id", userId);
  const rows = await manyRows<EventQualityColumns & { user_id: string }>(
    sql,
    joinEventQuality(sql, q.select("p.user_id"), "p.user_id"),
  );
  return rows.flatMap((r) => eventQualityOf(r.user_id, r) ?? []);
}

/**
 * Makes every participant's sums (`quality_participants`) from their sessions' rows, as the projection
 * keeps them: for a database whose sessions were projected before the sums existed (and seeded studies).
 */
export async function sumQualityParticipants(sql: Sql): Promise<void> {
  await sql.raw(
    `insert into quality_participants (user_id, experiment_id, events, pointer_events, viewport_width,
       visit_ms, active_ms, hidden_ms, watch_ms, visible_watch_ms)
     select t.user_id, min(t.experiment_id::text)::uuid, sum(t.folded), sum(s.pointer_events),
       max(s.viewport_width), sum(coalesce(t.end_ms - t.first_ms, 0)), sum(t.active_ms), sum(t.hidden_ms),
       sum(t.watch_ms), sum(t.visible_watch_ms)
     from quality_timelines as t join quality_sessions as s on s.session_id = t.session_id
     group by t.user_id`,
  );
}
