import type { Sql } from "@feedlab/sql";
// The module alone, not the package: the Parquet export's worker loads this file and no more of ingest.
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

/** A row of the events store as the database returns it. */
export interface EventRow {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
  experiment_id: string;
  group_id: string | null;
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
  /** A simulated participant's event (a dry run); false on events logged before the flag. */
  simulated: boolean;
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

/** The export's order (api.md), of the table's columns. */
const ORDER = `events."timestamp", events.session_id, coalesce(events.seq, ${NO_SEQ}), events.event_id`;

/**
 * Runs one statement (`?` placeholders) and answers its rows: knex (`knexRows`), or a bare driver in
 * a thread that loads no query builder (the Parquet export's worker).
 */
export type RunRows = (sql: string, bindings: readonly unknown[]) => Promise<unknown[]>;

/** A knex client or transaction as a RunRows. */
function knexRows(sql: Sql): RunRows {
  return async (text, bindings) => rowsOf(await sql.raw(text, bindings as Knex.RawBinding[]));
}

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
  yield* keysetPages<EventRow>(knexRows(sql), filter, "*", pageSize);
}

/** An event as the Parquet export reads it: times as epoch milliseconds, the payload as JSON text. */
export interface EventExportRow {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
  experiment_id: string;
  group_id: string | null;
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
 * What the columnar export reads of an event, in this order: each column's expression, cast to a
 * type whose binary COPY form the export decodes (text, int4, int8, float8).
 */
export const EXPORT_SELECT = [
  ["event_id", "event_id::text"],
  ["session_id", "session_id::text"],
  ["user_id", "user_id::text"],
  ["login_id", "login_id::text"],
  ["experiment_id", "experiment_id::text"],
  ["group_id", "group_id::text"],
  ["event_type", "event_type::text"],
  ["video_id", "video_id::text"],
  ["timestamp_ms", `(extract(epoch from "timestamp") * 1000)::int8`],
  ["received_at_ms", "(extract(epoch from received_at) * 1000)::int8"],
  ["watch_ratio", "watch_ratio::float8"],
  ["watch_duration", "watch_duration::float8"],
  ["position_in_feed", "position_in_feed::int4"],
  ["algorithm_feed", "algorithm_feed::text"],
  ["algorithm_watch", "algorithm_watch::text"],
  ["payload_json", "payload::text"],
  ["seq", "seq::int8"],
  ["ui_feed", "ui_feed::text"],
  ["ui_watch", "ui_watch::text"],
] as const satisfies readonly (readonly [keyof EventExportRow, string])[];

const EXPORT_COLUMNS = EXPORT_SELECT.map(([name, sql]) => `${sql} as ${name}`).join(", ");

/** A text value as an SQL literal (escape-string syntax, whatever standard_conforming_strings says). */
function literal(value: string): string {
  if (value.includes("\0")) throw new Error("a filter value holds a NUL character");
  return `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/**
 * All of `filter`'s events in the export's order as one COPY statement (binary format), with the
 * columns of EXPORT_SELECT: PostgreSQL streams them as the reader takes them (the (experiment, time)
 * index gives the time order, an incremental sort the rest), in one snapshot. COPY takes no
 * parameters, so the filter's values are literals.
 */
export function eventExportCopy(filter: EventFilter): string {
  const where = [`experiment_id = ${literal(filter.experimentId)}::uuid`];
  if (filter.types && filter.types.length > 0)
    where.push(`event_type in (${filter.types.map(literal).join(", ")})`);
  if (filter.since) where.push(`"timestamp" >= ${literal(filter.since)}::timestamptz`);
  if (filter.until) where.push(`"timestamp" < ${literal(filter.until)}::timestamptz`);
  return `copy (select ${EXPORT_SELECT.map(([, sql]) => sql).join(", ")} from events
    where ${where.join(" and ")} order by ${ORDER}) to stdout (format binary)`;
}

/**
 * The same pages in the same order, read for a columnar export: no Date or JSON parsing on the way
 * in (the export writes epoch milliseconds and JSON text as they come). `pageSize` may be a function,
 * asked before each page (the export sizes its pages by the bytes of the previous one).
 */
export async function* eventExportPages(
  rows: RunRows,
  filter: EventFilter,
  pageSize: number | (() => number) = PAGE,
): AsyncGenerator<EventExportRow[]> {
  yield* keysetPages<EventExportRow>(rows, filter, EXPORT_COLUMNS, pageSize);
}

/** Where the last page ended: its last row's exact timestamp as the database's text, and its keys. */
type Cursor = { cursor_at: string; session_id: string; seq: string | number | null; event_id: string };

/** The statement of one keyset page of `filter`'s events after `cursor`. */
function keysetPage(
  filter: EventFilter,
  columns: string,
  cursor: Cursor | null,
  size: number,
): [sql: string, bindings: unknown[]] {
  const where = ["experiment_id = ?"];
  const bindings: unknown[] = [filter.experimentId];
  if (filter.types && filter.types.length > 0) {
    where.push(`event_type in (${filter.types.map(() => "?").join(", ")})`);
    bindings.push(...filter.types);
  }
  if (filter.since) {
    where.push(`"timestamp" >= ?`);
    bindings.push(filter.since);
  }
  if (filter.until) {
    where.push(`"timestamp" < ?`);
    bindings.push(filter.until);
  }
  if (cursor) {
    // The time bound lets the (experiment, time) index do the work; the row comparison is exact.
    where.push(
      `"timestamp" >= ?`,
      `("timestamp", session_id, coalesce(seq, ${NO_SEQ}), event_id) > (?::timestamptz, ?, ?, ?)`,
    );
    const seq = cursor.seq === null ? NO_SEQ : String(cursor.seq);
    bindings.push(cursor.cursor_at, cursor.cursor_at, cursor.session_id, seq, cursor.event_id);
  }
  bindings.push(size);
  return [
    `select ${columns}, "timestamp"::text as cursor_at from events where ${where.join(" and ")}
     order by ${ORDER} limit ?`,
    bindings,
  ];
}

/**
 * Keyset pages over (timestamp, session, seq, event id). The cursor keeps the last row's exact
 * timestamp as the database's text (`cursor_at`), whatever the columns read.
 */
async function* keysetPages<Row>(
  run: RunRows,
  filter: EventFilter,
  columns: string,
  pageSize: number | (() => number),
): AsyncGenerator<Row[]> {
  let cursor: Cursor | null = null;
  for (;;) {
    const size = typeof pageSize === "number" ? pageSize : pageSize();
    const rows = (await run(...keysetPage(filter, columns, cursor, size))) as (Row & Cursor)[];
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

/** Those of `eventIds` the store holds. */
export async function storedEventIds(sql: Sql, eventIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < eventIds.length; i += 5000) {
    const rows = (await sql("events")
      .whereIn("event_id", eventIds.slice(i, i + 5000))
      .select("event_id")) as Pick<EventRow, "event_id">[];
    for (const r of rows) found.add(r.event_id);
  }
  return found;
}

/** The event types the store holds of each of `userIds` (a participant without events is absent). */
export async function eventTypesByUser(
  sql: Sql,
  userIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (userIds.length === 0) return out;
  const rows = (await sql("events").whereIn("user_id", userIds).distinct("user_id", "event_type")) as Pick<
    EventRow,
    "user_id" | "event_type"
  >[];
  for (const r of rows) {
    const types = out.get(r.user_id) ?? new Set<string>();
    types.add(r.event_type);
    out.set(r.user_id, types);
  }
  return out;
}

/** An event of a session as the quality fold reads it: its order and its visibility fields. */
export interface FoldEventRow {
  readonly session_id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly timestamp: Date | string;
  readonly seq: number | string | null;
  /** `payload.visible`, as JSON gives it. */
  readonly visible: boolean | string | null;
  /** `payload.visibilityState`. */
  readonly visibility_state: string | null;
}

/** A session whose events a fold reads: all of them (`after` null), or from a place in its order on. */
export interface FoldRead {
  readonly userId: string;
  readonly sessionId: string;
  readonly after: { readonly seq: number; readonly at: Date } | null;
}

/**
 * The events the store holds of some participants' sessions, for the quality fold, in one statement
 * (a simple query per session, joined by `union all`: each one a range of events_session_order_idx,
 * planned as cheaply as alone): of each session all of them, or those from a place in the fold's
 * order on (a fold from a kept state; a superset, which the fold narrows to the events strictly after
 * it). A session read whole starts below every place (seq -2: events without one count as -1).
 */
export async function sessionEventsForFold(sql: Sql, reads: readonly FoldRead[]): Promise<FoldEventRow[]> {
  if (reads.length === 0) return [];
  const one = `(select session_id, event_id, event_type, timestamp, seq,
      payload->'visible' as visible, payload->>'visibilityState' as visibility_state
    from events where session_id = ? and user_id = ? and (coalesce(seq, -1), timestamp) >= (?, ?))`;
  return rowsOf<FoldEventRow>(
    await sql.raw(
      reads.map(() => one).join(" union all "),
      reads.flatMap((r) => [r.sessionId, r.userId, r.after?.seq ?? -2, r.after?.at ?? "-infinity"]),
    ),
  );
}

/** Whether the store holds any event yet (false before its table exists: migrations ask it). */
export async function holdsEvents(sql: Sql): Promise<boolean> {
  if (!(await sql.schema.hasTable("events"))) return false;
  return (await sql("events").first("event_id")) !== undefined;
}
