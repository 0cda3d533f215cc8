import { Readable } from "node:stream";
import {
  type EventFilter,
  type EventRow,
  eventPages,
  participantEvents,
  timestampFlag,
} from "@feedlab/projector";
import { EVENT_TYPES, type StoredEvent, TRAJECTORY_EXCLUDED } from "@feedlab/schemas";
import type { Db, OpenDb } from "@feedlab/sql";
import { iso, json } from "../db/present.ts";
import { assertExperiment } from "../experiments/exists.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { armsOf } from "../groups/queries/groups.queries.ts";
import { csvRow } from "../http/csv.ts";
import { notFound } from "../http/errors.ts";
import { participantRow, simulatedParticipantIds } from "../participants/queries/users.queries.ts";
import { templateNames } from "../ui/queries/templates.queries.ts";
import { EXPORT_COLUMNS, type ExportContext, uiName } from "./event-columns.ts";
import type { EventExportJob } from "./event-export.worker.ts";
import { parquetExport, type SendParquet } from "./parquet.ts";

/** An event as the exports give it: the stored event, then the names of the layouts it was shown. */
export type ExportedEvent = StoredEvent & {
  /** The feed layout's name at export time, or the preset key (api.md "Console and exports"). */
  ui_feed_name: string | null;
  ui_watch_name: string | null;
};

/**
 * A stored event for admins, with its group's name, a flag on an implausible client time and the
 * names of its layouts.
 */
const presentEvent = (
  r: EventRow,
  { groupNames, createdMs, templateNames }: ExportContext,
): ExportedEvent => ({
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
  group_name: r.group_id === null ? "" : (groupNames.get(r.group_id) ?? ""),
  seq: r.seq === null ? null : Number(r.seq),
  ui_feed: r.ui_feed,
  ui_watch: r.ui_watch,
  timestamp_flag: timestampFlag(
    new Date(r.timestamp).getTime(),
    new Date(r.received_at).getTime(),
    createdMs,
  ),
  ui_feed_name: uiName(r.ui_feed, templateNames),
  ui_watch_name: uiName(r.ui_watch, templateNames),
});

/** The events an export gives: the store's filter, and whether simulated participants' are in. */
export interface ExportFilter extends EventFilter {
  /** Simulated participants' events (dry runs) are left out unless this is true (api.md). */
  readonly includeSimulated?: boolean;
}

/** Reads of the events store for admins, rendered for HTTP: NDJSON and CSV streams, trajectories. */
export function createEventStoreReader(db: Db, link: OpenDb["link"]) {
  async function contextOf(experimentId: string): Promise<ExportContext> {
    const [groups, experiment, templates] = await Promise.all([
      armsOf<{ id: string; name: string }>(db, experimentId, "id", "name"),
      experimentRow<{ created_at: Date }>(db, experimentId, "created_at"),
      // Every layout: an event may have been shown one that no arm of the study uses any more.
      templateNames(db),
    ]);
    return {
      groupNames: new Map(groups.map((g) => [g.id, g.name])),
      createdMs: experiment ? new Date(experiment.created_at).getTime() : 0,
      templateNames: templates,
    };
  }

  /**
   * The participants whose events an export leaves out: the experiment's simulated ones, unless the
   * filter includes them. The store's queries filter by experiment, type and time only, so the
   * export skips these participants' rows as they come.
   */
  async function leftOut(filter: ExportFilter): Promise<Set<string>> {
    if (filter.includeSimulated === true) return new Set();
    return new Set(await simulatedParticipantIds(db, filter.experimentId));
  }

  async function* pages(filter: ExportFilter): AsyncGenerator<ExportedEvent[]> {
    const [context, skipped] = await Promise.all([contextOf(filter.experimentId), leftOut(filter)]);
    for await (const rows of eventPages(db, filter)) {
      const kept = skipped.size === 0 ? rows : rows.filter((r) => !skipped.has(r.user_id));
      if (kept.length > 0) yield kept.map((r) => presentEvent(r, context));
    }
  }

  return {
    assertExperiment: (id: string): Promise<void> => assertExperiment(db, id),

    /** The events an export gives, as objects, a page at a time (the replication package writes them). */
    pages,

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

    /**
     * Parquet with the same columns, streamed a row group (10,000 events) at a time by a worker
     * thread that reads the rows from the database itself (event-export.worker.ts).
     */
    async parquet(filter: ExportFilter): Promise<SendParquet> {
      const [context, skipped] = await Promise.all([contextOf(filter.experimentId), leftOut(filter)]);
      const { link: db, transfer } = link();
      const job: EventExportJob = {
        db,
        filter,
        skippedUsers: [...skipped],
        groupNames: [...context.groupNames],
        createdMs: context.createdMs,
        templateNames: [...(context.templateNames ?? [])],
      };
      return parquetExport(EXPORT_WORKER, job, transfer);
    },

    /** A participant's events in time order, without the high-frequency and tab-state types. */
    async trajectory(userId: string): Promise<StoredEvent[]> {
      const user = await participantRow<{ experiment_id: string }>(db, userId, "experiment_id");
      if (!user) throw notFound("participant");
      const [rows, context] = await Promise.all([
        participantEvents(db, userId, TRAJECTORY_TYPES),
        contextOf(user.experiment_id),
      ]);
      return rows.map((r) => presentEvent(r, context));
    },
  };
}

/** The event types a trajectory shows. */
const TRAJECTORY_TYPES = EVENT_TYPES.filter((t) => !TRAJECTORY_EXCLUDED.has(t));

/** The Parquet export's worker thread (event-export.worker.ts). */
export const EXPORT_WORKER = new URL("./event-export.worker.ts", import.meta.url);

export type EventStoreReader = ReturnType<typeof createEventStoreReader>;
