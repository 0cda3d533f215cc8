// The events export as Parquet, in a worker thread of its own (parquet.ts starts it): it opens the
// database (a connection of its own, or a session of the embedded engine's worker), reads the
// experiment's events page by page in the export's order, and posts the file's bytes a row group at
// a time. Nothing of the rows reaches the heap of the thread that serves participants.
import { workerData } from "node:worker_threads";
import {
  type EventExportRow,
  type EventFilter,
  eventExportPages,
} from "@feedlab/projector/read-models/events/events.queries.ts";
import type { Knex } from "knex";
import { type DbLink, openLinkedDb } from "../db/clients.ts";
import { type ExportContext, parquetColumns } from "./event-columns.ts";
import { type ParquetOptions, postParquet } from "./parquet-writer.ts";

/** What the worker is given: the database, the events, and the names the export adds. */
export interface EventExportJob {
  readonly db: DbLink;
  readonly filter: EventFilter;
  readonly groupNames: [id: string, name: string][];
  readonly createdMs: number;
}

/**
 * Rows of a page of the database's reads at most: enough that a query's cost is spread over many,
 * and few enough that the driver's rows of a page die young (2,000-row pages were promoted to the
 * old generation while they arrived, and cost a full collection every 50 ms).
 */
const PAGE = 500;
/**
 * Text of a page at most, about: the heap holds a page as the driver's strings, and an event may
 * carry up to 2 MB. The first page is small; each next one is sized from the text of the last.
 */
const PAGE_CHARS = 4 * 1024 * 1024;
const FIRST_PAGE = 10;

/** The events of `filter`, in pages sized by their text (see PAGE_CHARS). */
export async function* pagesOf(db: Knex, filter: EventFilter): AsyncGenerator<EventExportRow[]> {
  let size = FIRST_PAGE;
  for await (const page of eventExportPages(db, filter, () => size)) {
    let chars = 0;
    for (const row of page) chars += row.payload_json.length + 200;
    size = Math.max(1, Math.min(PAGE, size * 4, Math.floor((page.length * PAGE_CHARS) / chars)));
    yield page;
  }
}

/** How the events are written: their columns, row groups of 10,000, statistics where they help. */
export function eventParquet(context: ExportContext): ParquetOptions<EventExportRow> {
  return {
    columns: parquetColumns(context),
    createdBy: "feedlab",
    rowGroup: 10_000,
    // Ids and names: nobody filters them by range, and their min/max cost time to compute.
    noStatistics: ["event_id", "session_id", "user_id", "login_id", "group_id", "experiment_id", "video_id"],
    plain: ["event_id"],
  };
}

const job = workerData as EventExportJob | undefined;
if (job) {
  const db = openLinkedDb(job.db);
  // The connection is closed before the last bytes go out: the thread is stopped once they have.
  const pages = async function* () {
    try {
      yield* pagesOf(db, job.filter);
    } finally {
      await db.destroy();
    }
  };
  await postParquet(pages(), eventParquet({ groupNames: new Map(job.groupNames), createdMs: job.createdMs }));
}
