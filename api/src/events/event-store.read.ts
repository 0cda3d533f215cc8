import { Readable } from "node:stream";
import { type EventFilter, type EventRow, eventPages, participantEvents } from "@feedlab/projector";
import { EVENT_TYPES, type StoredEvent, TRAJECTORY_EXCLUDED } from "@feedlab/schemas";
import type { Db } from "../db/db.ts";
import { iso, json } from "../db/present.ts";
import { csvRow } from "../http/csv.ts";
import { notFound } from "../http/errors.ts";

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
] as const;

/** A stored event for admins; `groupNames` maps group ids to their names. */
export const presentEvent = (r: EventRow, groupNames: ReadonlyMap<string, string>): StoredEvent => ({
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
});

export type ExportFilter = EventFilter;

/** Reads of the events store for admins, rendered for HTTP: NDJSON and CSV streams, trajectories. */
export function createEventStoreReader(db: Db) {
  const groupNames = async (where: { experiment_id: string } | { id: string }) =>
    new Map(
      ((await db("groups").where(where).select("id", "name")) as { id: string; name: string }[]).map((g) => [
        g.id,
        g.name,
      ]),
    );

  async function* pages(filter: ExportFilter): AsyncGenerator<StoredEvent[]> {
    const names = await groupNames({ experiment_id: filter.experimentId });
    for await (const rows of eventPages(db, filter)) yield rows.map((r) => presentEvent(r, names));
  }

  return {
    async assertExperiment(id: string): Promise<void> {
      if (!(await db("experiments").where({ id }).first("id"))) throw notFound("experiment");
    },

    /** NDJSON: one event per line. */
    ndjson(filter: ExportFilter): Readable {
      return Readable.from(
        (async function* () {
          for await (const page of pages(filter)) yield page.map((e) => `${JSON.stringify(e)}\n`).join("");
        })(),
      );
    },

    /** CSV (RFC 4180) with a header row; payload as JSON text. */
    csv(filter: ExportFilter): Readable {
      return Readable.from(
        (async function* () {
          yield csvRow(EXPORT_COLUMNS);
          for await (const page of pages(filter))
            yield page.map((e) => csvRow(EXPORT_COLUMNS.map((c) => e[c]))).join("");
        })(),
      );
    },

    /** A participant's events in time order, without the high-frequency and tab-state types. */
    async trajectory(userId: string): Promise<StoredEvent[]> {
      const user = (await db("users").where({ id: userId }).first("group_id")) as
        | { group_id: string }
        | undefined;
      if (!user) throw notFound("participant");
      const rows = await participantEvents(
        db,
        userId,
        EVENT_TYPES.filter((t) => !TRAJECTORY_EXCLUDED.has(t)),
      );
      const names = await groupNames({ id: user.group_id });
      return rows.map((r) => presentEvent(r, names));
    },
  };
}

export type EventStoreReader = ReturnType<typeof createEventStoreReader>;
