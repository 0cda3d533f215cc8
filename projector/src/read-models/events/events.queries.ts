import type { Sql } from "@feedlab/ingest";

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
  let cursor: EventRow | null = null;
  for (;;) {
    let q = sql("events").where("experiment_id", filter.experimentId);
    if (filter.types && filter.types.length > 0) q = q.whereIn("event_type", filter.types);
    if (filter.since) q = q.where("timestamp", ">=", filter.since);
    if (filter.until) q = q.where("timestamp", "<", filter.until);
    if (cursor) {
      const c: EventRow = cursor;
      // The time bound lets the (experiment, time) index do the work; the row comparison is exact.
      q = q
        .where("timestamp", ">=", c.timestamp)
        .whereRaw(`("timestamp", session_id, coalesce(seq, ${NO_SEQ}), event_id) > (?, ?, ?, ?)`, [
          c.timestamp,
          c.session_id,
          c.seq === null ? NO_SEQ : String(c.seq),
          c.event_id,
        ]);
    }
    const rows = (await q
      .orderBy("timestamp")
      .orderBy("session_id")
      .orderByRaw(`coalesce(seq, ${NO_SEQ})`)
      .orderBy("event_id")
      .limit(pageSize)
      .select("*")) as EventRow[];
    const last = rows[rows.length - 1];
    if (!last) return;
    yield rows;
    cursor = last;
    if (rows.length < pageSize) return;
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
