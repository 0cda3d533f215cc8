import type { Sql } from "@feedlab/ingest";
import type { Knex } from "knex";

/** A row of the events store as the database returns it. */
export interface EventRow {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
  experiment_id: string;
  group_id: string;
  event_type: string;
  video_id: string | null;
  timestamp: Date;
  received_at: Date;
  watch_ratio: number | null;
  watch_duration: number | null;
  position_in_feed: number | null;
  algorithm_feed: string;
  algorithm_watch: string;
  payload: unknown;
  seq: string | number | null;
  ui_feed: string | null;
  ui_watch: string | null;
  log_partition: number;
  log_offset: string | number;
}

export interface EventFilter {
  readonly experimentId: string;
  readonly types?: readonly string[];
  /** Client timestamps, inclusive `since`, exclusive `until`. */
  readonly since?: string;
  readonly until?: string;
}

const PAGE = 2000;

/** A seq above any real one: events without a seq sort last within their session and time. */
const NO_SEQ = "9223372036854775807";

/**
 * An experiment's events in the export's order (api.md): client timestamp, ties broken by session and
 * `seq` (events without one last), then event id. Page by page through a keyset, so an export of
 * millions of events streams in constant memory on both databases.
 */
export async function* eventPages(
  sql: Sql,
  filter: EventFilter,
  pageSize = PAGE,
): AsyncGenerator<EventRow[]> {
  yield* keysetPages<EventRow>(sql, filter, ["*"], pageSize);
}

/** An event as the Parquet export reads it: times as epoch milliseconds, the payload as JSON text. */
export interface EventExportRow {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
  experiment_id: string;
  group_id: string;
  event_type: string;
  video_id: string | null;
  /** Epoch milliseconds (int8: text or a number, as the driver is set up). */
  timestamp_ms: string | number;
  received_at_ms: string | number;
  watch_ratio: number | null;
  watch_duration: number | null;
  position_in_feed: number | null;
  algorithm_feed: string;
  algorithm_watch: string;
  payload_json: string;
  seq: string | null;
  ui_feed: string | null;
  ui_watch: string | null;
}

/**
 * The same pages in the same order, read for a columnar export: no Date or JSON parsing on the way
 * in (the export writes epoch milliseconds and JSON text as they come). `pageSize` may be a function,
 * asked before each page (the export sizes its pages by the bytes of the previous one).
 */
export async function* eventExportPages(
  sql: Sql,
  filter: EventFilter,
  pageSize: number | (() => number) = PAGE,
): AsyncGenerator<EventExportRow[]> {
  yield* keysetPages<EventExportRow>(
    sql,
    filter,
    [
      "event_id",
      "session_id",
      "user_id",
      "login_id",
      "experiment_id",
      "group_id",
      "event_type",
      "video_id",
      sql.raw(`(extract(epoch from "timestamp") * 1000)::int8 as timestamp_ms`),
      sql.raw("(extract(epoch from received_at) * 1000)::int8 as received_at_ms"),
      "watch_ratio",
      "watch_duration",
      "position_in_feed",
      "algorithm_feed",
      "algorithm_watch",
      sql.raw("payload::text as payload_json"),
      "seq",
      "ui_feed",
      "ui_watch",
    ],
    pageSize,
  );
}

/**
 * Keyset pages over (timestamp, session, seq, event id). The cursor keeps the last row's exact
 * timestamp as the database's text (`cursor_at`), whatever the columns read.
 */
async function* keysetPages<Row>(
  sql: Sql,
  filter: EventFilter,
  columns: readonly (string | Knex.Raw)[],
  pageSize: number | (() => number),
): AsyncGenerator<Row[]> {
  type Cursor = { cursor_at: string; session_id: string; seq: string | number | null; event_id: string };
  let cursor: Cursor | null = null;
  for (;;) {
    const size = typeof pageSize === "number" ? pageSize : pageSize();
    let q = sql("events").where("experiment_id", filter.experimentId);
    if (filter.types && filter.types.length > 0) q = q.whereIn("event_type", filter.types);
    if (filter.since) q = q.where("timestamp", ">=", filter.since);
    if (filter.until) q = q.where("timestamp", "<", filter.until);
    if (cursor) {
      const c: Cursor = cursor;
      // The time bound lets the (experiment, time) index do the work; the row comparison is exact.
      q = q
        .where("timestamp", ">=", c.cursor_at)
        .whereRaw(
          `("timestamp", session_id, coalesce(seq, ${NO_SEQ}), event_id) > (?::timestamptz, ?, ?, ?)`,
          [c.cursor_at, c.session_id, c.seq === null ? NO_SEQ : String(c.seq), c.event_id],
        );
    }
    const rows = (await q
      .orderBy("timestamp")
      .orderBy("session_id")
      .orderByRaw(`coalesce(seq, ${NO_SEQ})`)
      .orderBy("event_id")
      .limit(size)
      .select(...columns, sql.raw(`"timestamp"::text as cursor_at`))) as (Row & Cursor)[];
    const last = rows[rows.length - 1];
    if (!last) return;
    yield rows;
    cursor = {
      cursor_at: last.cursor_at,
      session_id: last.session_id,
      seq: last.seq,
      event_id: last.event_id,
    };
    if (rows.length < size) return;
  }
}

/** A participant's events of the given types in time order (the trajectory view), at most `limit`. */
export async function participantEvents(
  sql: Sql,
  userId: string,
  types: readonly string[],
  limit = 50_000,
): Promise<EventRow[]> {
  return (await sql("events")
    .where("user_id", userId)
    .whereIn("event_type", types)
    .orderBy("timestamp")
    .orderBy("received_at")
    .orderByRaw("seq nulls last")
    .orderBy("event_id")
    .limit(limit)
    .select("*")) as EventRow[];
}

/**
 * Where the first copy of each event sits in the log (`partition:offset`), for the events the store
 * holds: the gate of a partial replay, which applies an event only at that place.
 */
export async function firstPlaces(sql: Sql, eventIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < eventIds.length; i += 5000) {
    const rows = (await sql("events")
      .whereIn("event_id", eventIds.slice(i, i + 5000))
      .select("event_id", "log_partition", "log_offset")) as Pick<
      EventRow,
      "event_id" | "log_partition" | "log_offset"
    >[];
    for (const r of rows) out.set(r.event_id, placeKey(r.log_partition, Number(r.log_offset)));
  }
  return out;
}

export const placeKey = (partition: number, offset: number) => `${partition}:${offset}`;
