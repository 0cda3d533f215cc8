import { Readable } from "node:stream";
import {
  type EventExportRow,
  type EventFilter,
  type EventRow,
  eventExportPages,
  eventPages,
  participantEvents,
  timestampFlag,
} from "@feedlab/projector";
import { EVENT_TYPES, type StoredEvent, TRAJECTORY_EXCLUDED } from "@feedlab/schemas";
import type { Db } from "../db/db.ts";
import { iso, json } from "../db/present.ts";
import { assertExperiment } from "../experiments/exists.ts";
import { csvRow } from "../http/csv.ts";
import { notFound } from "../http/errors.ts";
import { type Kind, parquetStream } from "./parquet.ts";

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

/** What presenting an event needs of its experiment: group names and when the study was created. */
interface Context {
  readonly groupNames: ReadonlyMap<string, string>;
  readonly createdMs: number;
}

/** A stored event for admins, with its group's name and a flag on an implausible client time. */
export const presentEvent = (r: EventRow, { groupNames, createdMs }: Context): StoredEvent => ({
  event_id: r.event_id,
  session_id: r.session_id,
  user_id: r.user_id,
  login_id: r.login_id,
  group_id: r.group_id,
  event_type: r.event_type,
  video_id: r.video_id,
  timestamp: iso(r.timestamp),
  received_at: iso(r.received_at),
  watch_ratio: r.watch_ratio,
  watch_duration: r.watch_duration,
  position_in_feed: r.position_in_feed,
  algorithm_feed: r.algorithm_feed,
  algorithm_watch: r.algorithm_watch,
  payload: json<Record<string, unknown>>(r.payload, {}),
  experiment_id: r.experiment_id,
  group_name: groupNames.get(r.group_id) ?? "",
  seq: r.seq === null ? null : Number(r.seq),
  ui_feed: r.ui_feed,
  ui_watch: r.ui_watch,
  timestamp_flag: timestampFlag(
    new Date(r.timestamp).getTime(),
    new Date(r.received_at).getTime(),
    createdMs,
  ),
});

/**
 * Each export column's Parquet type and how it is read from a row as the database returned it
 * (times as epoch milliseconds, the payload as JSON text: nothing parsed on the way).
 */
function parquetColumns(context: () => Context) {
  const text = (c: keyof EventExportRow) => (r: EventExportRow) => r[c] ?? null;
  const columns: Record<(typeof EXPORT_COLUMNS)[number], readonly [Kind, (r: EventExportRow) => unknown]> = {
    event_id: ["string", text("event_id")],
    session_id: ["string", text("session_id")],
    user_id: ["string", text("user_id")],
    login_id: ["string", text("login_id")],
    group_id: ["string", text("group_id")],
    event_type: ["string", text("event_type")],
    video_id: ["string", text("video_id")],
    timestamp: ["timestamp", (r) => BigInt(r.timestamp_ms)],
    received_at: ["timestamp", (r) => BigInt(r.received_at_ms)],
    watch_ratio: ["double", text("watch_ratio")],
    watch_duration: ["double", text("watch_duration")],
    position_in_feed: ["int32", text("position_in_feed")],
    algorithm_feed: ["string", text("algorithm_feed")],
    algorithm_watch: ["string", text("algorithm_watch")],
    payload: ["json", text("payload_json")],
    experiment_id: ["string", text("experiment_id")],
    group_name: ["string", (r) => context().groupNames.get(r.group_id) ?? ""],
    seq: ["int64", (r) => (r.seq === null ? null : BigInt(r.seq))],
    ui_feed: ["string", text("ui_feed")],
    ui_watch: ["string", text("ui_watch")],
    timestamp_flag: [
      "string",
      (r) => timestampFlag(Number(r.timestamp_ms), Number(r.received_at_ms), context().createdMs),
    ],
  };
  return EXPORT_COLUMNS.map((c) => [c, ...columns[c]] as const);
}

export type ExportFilter = EventFilter;

/** Reads of the events store for admins, rendered for HTTP: NDJSON and CSV streams, trajectories. */
export function createEventStoreReader(db: Db) {
  async function contextOf(experimentId: string): Promise<Context> {
    const [groups, experiment] = await Promise.all([
      db("groups").where({ experiment_id: experimentId }).select("id", "name") as Promise<
        { id: string; name: string }[]
      >,
      db("experiments").where({ id: experimentId }).first("created_at") as Promise<
        { created_at: Date } | undefined
      >,
    ]);
    return {
      groupNames: new Map(groups.map((g) => [g.id, g.name])),
      createdMs: experiment ? new Date(experiment.created_at).getTime() : 0,
    };
  }

  async function* pages(filter: ExportFilter): AsyncGenerator<StoredEvent[]> {
    const context = await contextOf(filter.experimentId);
    for await (const rows of eventPages(db, filter)) yield rows.map((r) => presentEvent(r, context));
  }

  return {
    assertExperiment: (id: string): Promise<void> => assertExperiment(db, id),

    /** NDJSON: one event per line. */
    ndjson(filter: ExportFilter): Readable {
      return Readable.from(
        (async function* () {
          for await (const page of pages(filter)) yield page.map((e) => `${JSON.stringify(e)}\n`).join("");
        })(),
      );
    },

    /** CSV (RFC 4180) with a header row; payload as JSON text. */
    csv(filter: ExportFilter, options: { safe?: boolean } = {}): Readable {
      const safe = options.safe === true;
      return Readable.from(
        (async function* () {
          yield csvRow(EXPORT_COLUMNS);
          for await (const page of pages(filter))
            yield page
              .map((e) =>
                csvRow(
                  EXPORT_COLUMNS.map((c) => e[c]),
                  safe,
                ),
              )
              .join("");
        })(),
      );
    },

    /** Parquet with the same columns, streamed a row group (10,000 events) at a time. */
    parquet(filter: ExportFilter): Readable {
      let context: Context = { groupNames: new Map(), createdMs: 0 };
      return parquetStream({
        columns: parquetColumns(() => context),
        pages: (async function* () {
          context = await contextOf(filter.experimentId);
          // Pages of 500 rows: the driver's rows die young instead of piling up in the old generation.
          yield* eventExportPages(db, filter, 500);
        })(),
        createdBy: "feedlab",
        // Ids and names: nobody filters them by range, and their min/max cost time to compute.
        noStatistics: [
          "event_id",
          "session_id",
          "user_id",
          "login_id",
          "group_id",
          "experiment_id",
          "video_id",
        ],
        plain: ["event_id"],
      });
    },

    /** A participant's events in time order, without the high-frequency and tab-state types. */
    async trajectory(userId: string): Promise<StoredEvent[]> {
      const user = (await db("users").where({ id: userId }).first("experiment_id")) as
        | { experiment_id: string }
        | undefined;
      if (!user) throw notFound("participant");
      const rows = await participantEvents(
        db,
        userId,
        EVENT_TYPES.filter((t) => !TRAJECTORY_EXCLUDED.has(t)),
      );
      const context = await contextOf(user.experiment_id);
      return rows.map((r) => presentEvent(r, context));
    },
  };
}

export type EventStoreReader = ReturnType<typeof createEventStoreReader>;
