// The events export's columns (api.md), and how the Parquet export reads each from a row. Loaded by
// the export's worker thread (event-export.worker.ts) as well, so it imports only what a column needs.
import { type EventExportRow, EXPORT_SELECT } from "@feedlab/projector/read-models/events/events.queries.ts";
import { timestampFlag } from "@feedlab/projector/read-models/session-activity/client-clock.ts";
import { type CopyTuple, int8At } from "./copy-binary.ts";
import type { Kind } from "./parquet.ts";
import type { Column } from "./parquet-writer.ts";

/** Columns of the events export, in order (api.md). */
export const EXPORT_COLUMNS = [
  "event_id",
  "session_id",
  "user_id",
  "login_id",
  "group_id",
  "event_type",
  "video_id",
  "timestamp",
  "received_at",
  "watch_ratio",
  "watch_duration",
  "position_in_feed",
  "algorithm_feed",
  "algorithm_watch",
  "payload",
  "experiment_id",
  "group_name",
  "seq",
  "ui_feed",
  "ui_watch",
  "timestamp_flag",
  "ui_feed_name",
  "ui_watch_name",
] as const;

/** What the export adds to the stored rows: group and layout names, and when the study was created. */
export interface ExportContext {
  readonly groupNames: ReadonlyMap<string, string>;
  readonly createdMs: number;
  /** Layout (UI template) names by id, as they are at export time; none: every layout reads as unnamed. */
  readonly templateNames?: ReadonlyMap<string, string>;
}

/**
 * The name of the UI an event was stamped with (`ui_feed`, `ui_watch`), api.md "Console and
 * exports": a layout's name at export time for `<template id>@<version>`, the key itself for a
 * preset key or `none`, and null when there is no stamp or the layout is gone.
 */
export function uiName(
  stamp: string | null,
  templateNames: ReadonlyMap<string, string> | undefined,
): string | null {
  if (stamp === null) return null;
  const at = stamp.indexOf("@");
  if (at < 0) return templateNames?.get(stamp) ?? stamp;
  return templateNames?.get(stamp.slice(0, at)) ?? null;
}

/** Where each column the database gives lies in a COPY tuple (events.queries.ts, EXPORT_SELECT). */
const FIELD = Object.fromEntries(EXPORT_SELECT.map(([name], i) => [name, i])) as Record<
  (typeof EXPORT_SELECT)[number][0],
  number
>;

/**
 * Each export column's Parquet type and how it is read from a row as the database returned it
 * (times as epoch milliseconds, the payload as JSON text: nothing parsed on the way), or from a
 * binary COPY tuple of EXPORT_SELECT's columns.
 */
export function parquetColumns(context: ExportContext): Column<EventExportRow>[] {
  type Source = readonly [Kind, (r: EventExportRow) => unknown, Column<EventExportRow>[3]];
  const stored = (kind: Kind, c: keyof typeof FIELD): Source => [kind, (r) => r[c] ?? null, FIELD[c]];
  /** Group names by id: a tuple's id is read as its bytes, one character each (ids are ASCII). */
  const groupName = (id: string | null) => (id === null ? "" : (context.groupNames.get(id) ?? ""));
  const flag = (timestampMs: number, receivedMs: number) =>
    timestampFlag(timestampMs, receivedMs, context.createdMs);
  /**
   * A UI stamp's name, from a tuple's text field. A session's events come together and share their
   * stamp, so the last stamp's bytes are kept and its name reused while they repeat: most rows then
   * make no string at all (the export makes none per event elsewhere either).
   */
  const uiNameAt = (field: number) => {
    let last: Buffer | null = null;
    let name: string | null = null;
    return (t: CopyTuple) => {
      const length = t.length[field] as number;
      if (length < 0) return null;
      const at = t.start[field] as number;
      if (last === null || t.bytes.compare(last, 0, last.length, at, at + length) !== 0) {
        last = Buffer.from(t.bytes.subarray(at, at + length));
        name = uiName(last.toString("utf8"), context.templateNames);
      }
      return name;
    };
  };
  const columns: Record<(typeof EXPORT_COLUMNS)[number], Source> = {
    event_id: stored("string", "event_id"),
    session_id: stored("string", "session_id"),
    user_id: stored("string", "user_id"),
    login_id: stored("string", "login_id"),
    group_id: stored("string", "group_id"),
    event_type: stored("string", "event_type"),
    video_id: stored("string", "video_id"),
    timestamp: stored("timestamp", "timestamp_ms"),
    received_at: stored("timestamp", "received_at_ms"),
    watch_ratio: stored("double", "watch_ratio"),
    watch_duration: stored("double", "watch_duration"),
    position_in_feed: stored("int32", "position_in_feed"),
    algorithm_feed: stored("string", "algorithm_feed"),
    algorithm_watch: stored("string", "algorithm_watch"),
    payload: stored("json", "payload_json"),
    experiment_id: stored("string", "experiment_id"),
    group_name: [
      "string",
      (r) => groupName(r.group_id),
      (t: CopyTuple) => {
        const at = t.start[FIELD.group_id] as number;
        return groupName(t.bytes.toString("latin1", at, at + (t.length[FIELD.group_id] as number)));
      },
    ],
    seq: stored("int64", "seq"),
    ui_feed: stored("string", "ui_feed"),
    ui_watch: stored("string", "ui_watch"),
    timestamp_flag: [
      "string",
      (r) => flag(Number(r.timestamp_ms), Number(r.received_at_ms)),
      (t: CopyTuple) =>
        flag(int8At(t, FIELD.timestamp_ms) as number, int8At(t, FIELD.received_at_ms) as number),
    ],
    ui_feed_name: ["string", (r) => uiName(r.ui_feed, context.templateNames), uiNameAt(FIELD.ui_feed)],
    ui_watch_name: ["string", (r) => uiName(r.ui_watch, context.templateNames), uiNameAt(FIELD.ui_watch)],
  };
  return EXPORT_COLUMNS.map((c) => [c, ...columns[c]] as const);
}
