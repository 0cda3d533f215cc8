import { manyRows, type Sql } from "@feedlab/sql";

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

/**
 * Per participant of an experiment with events, their event measures (every participant, simulated
 * ones too: the caller leaves out whom it leaves out), or only `userId`'s. One statement over the
 * experiment's sessions (the experiment_id and user_id indexes), however many participants. Sums
 * are float8: exact for whole milliseconds below 2^53, and much faster than PostgreSQL's numeric.
 */
export async function eventQuality(sql: Sql, experimentId: string, userId?: string): Promise<EventQuality[]> {
  const q = sql("quality_sessions as s")
    .leftJoin("quality_timelines as t", "t.session_id", "s.session_id")
    .where("s.experiment_id", experimentId);
  if (userId !== undefined) q.where("s.user_id", userId);
  const rows = await manyRows<{
    user_id: string;
    active_ms: Num;
    hidden_ms: Num;
    watch_ms: Num;
    visible_watch_ms: Num;
    visit_seconds: Num;
    pointer_events: Num;
    viewport_width: Num;
  }>(
    sql,
    q
      .groupBy("s.user_id")
      .select(
        "s.user_id",
        sql.raw("coalesce(sum(t.active_ms::float8), 0) as active_ms"),
        sql.raw("coalesce(sum(t.hidden_ms::float8), 0) as hidden_ms"),
        sql.raw("coalesce(sum(t.watch_ms::float8), 0) as watch_ms"),
        sql.raw("coalesce(sum(t.visible_watch_ms::float8), 0) as visible_watch_ms"),
        sql.raw("sum(date_part('epoch', s.last_at - s.first_at)) as visit_seconds"),
        sql.raw("sum(s.pointer_events) as pointer_events"),
        sql.raw("max(s.viewport_width) as viewport_width"),
      ),
  );
  return rows.map((r) => ({
    user_id: r.user_id,
    active_seconds: Number(r.active_ms) / 1000,
    hidden_seconds: Number(r.hidden_ms) / 1000,
    visit_seconds: Number(r.visit_seconds ?? 0),
    watch_seconds: Number(r.watch_ms) / 1000,
    visible_watch_seconds: Number(r.visible_watch_ms) / 1000,
    pointer_events: Number(r.pointer_events ?? 0),
    viewport_width: r.viewport_width === null ? null : Number(r.viewport_width),
  }));
}
