// The events export's columns (api.md), and how the Parquet export reads each from a row. Loaded by
// the export's worker thread (event-export.worker.ts) as well, so it imports only what a column needs.
import type { EventExportRow } from "@feedlab/projector/read-models/events/events.queries.ts";
import { timestampFlag } from "@feedlab/projector/read-models/session-activity/client-clock.ts";
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
] as const;

/** What the export adds to the stored rows: group names, and when the study was created. */
export interface ExportContext {
  readonly groupNames: ReadonlyMap<string, string>;
  readonly createdMs: number;
}

/**
 * Each export column's Parquet type and how it is read from a row as the database returned it
 * (times as epoch milliseconds, the payload as JSON text: nothing parsed on the way).
 */
export function parquetColumns(context: ExportContext): Column<EventExportRow>[] {
  const text = (c: keyof EventExportRow) => (r: EventExportRow) => r[c] ?? null;
  const columns: Record<(typeof EXPORT_COLUMNS)[number], readonly [Kind, (r: EventExportRow) => unknown]> = {
    event_id: ["string", text("event_id")],
    session_id: ["string", text("session_id")],
    user_id: ["string", text("user_id")],
    login_id: ["string", text("login_id")],
    group_id: ["string", text("group_id")],
    event_type: ["string", text("event_type")],
    video_id: ["string", text("video_id")],
    timestamp: ["timestamp", text("timestamp_ms")],
    received_at: ["timestamp", text("received_at_ms")],
    watch_ratio: ["double", text("watch_ratio")],
    watch_duration: ["double", text("watch_duration")],
    position_in_feed: ["int32", text("position_in_feed")],
    algorithm_feed: ["string", text("algorithm_feed")],
    algorithm_watch: ["string", text("algorithm_watch")],
    payload: ["json", text("payload_json")],
    experiment_id: ["string", text("experiment_id")],
    group_name: ["string", (r) => context.groupNames.get(r.group_id) ?? ""],
    seq: ["int64", text("seq")],
    ui_feed: ["string", text("ui_feed")],
    ui_watch: ["string", text("ui_watch")],
    timestamp_flag: [
      "string",
      (r) => timestampFlag(Number(r.timestamp_ms), Number(r.received_at_ms), context.createdMs),
    ],
  };
  return EXPORT_COLUMNS.map((c) => [c, ...columns[c]] as const);
}
