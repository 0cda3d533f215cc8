import { Readable } from "node:stream";
import { EVENT_TYPES, TRAJECTORY_EXCLUDED } from "@feedlab/schemas";
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
] as const;

interface EventRow {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
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
}

export const presentEvent = (r: EventRow) => ({
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
});

export type StoredEvent = ReturnType<typeof presentEvent>;

export interface ExportFilter {
  readonly experimentId: string;
  readonly types?: readonly string[];
  /** Client timestamps, inclusive `since`, exclusive `until`. */
  readonly since?: string;
  readonly until?: string;
}

const PAGE = 2000;

/**
 * Reads of the events store for admins. Pages by (timestamp, event_id) keyset so an export of
 * millions of events streams in constant memory on both databases.
 */
export function createEventStoreReader(db: Db) {
  async function* pages(filter: ExportFilter): AsyncGenerator<StoredEvent[]> {
    let cursor: { ts: Date; id: string } | null = null;
    for (;;) {
      let q = db("events").where("experiment_id", filter.experimentId);
      if (filter.types && filter.types.length > 0) q = q.whereIn("event_type", filter.types);
      if (filter.since) q = q.where("timestamp", ">=", filter.since);
      if (filter.until) q = q.where("timestamp", "<", filter.until);
      if (cursor) {
        const c: { ts: Date; id: string } = cursor;
        q = q.where((w) =>
          w
            .where("timestamp", ">", c.ts)
            .orWhere((x) => x.where("timestamp", c.ts).andWhere("event_id", ">", c.id)),
        );
      }
      const rows = (await q.orderBy("timestamp").orderBy("event_id").limit(PAGE).select("*")) as EventRow[];
      if (rows.length === 0) return;
      yield rows.map(presentEvent);
      const last = rows[rows.length - 1] as EventRow;
      cursor = { ts: last.timestamp, id: last.event_id };
      if (rows.length < PAGE) return;
    }
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
      if (!(await db("users").where({ id: userId }).first("id"))) throw notFound("participant");
      const shown = EVENT_TYPES.filter((t) => !TRAJECTORY_EXCLUDED.has(t));
      const rows = (await db("events")
        .where("user_id", userId)
        .whereIn("event_type", shown)
        .orderBy("timestamp")
        .orderBy("received_at")
        .orderByRaw("seq nulls last")
        .orderBy("event_id")
        .limit(50_000)
        .select("*")) as EventRow[];
      return rows.map(presentEvent);
    },
  };
}

export type EventStoreReader = ReturnType<typeof createEventStoreReader>;
