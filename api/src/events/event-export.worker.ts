// The events export as Parquet, in a worker thread of its own (parquet.ts starts it): it opens the
// database without a query builder (a connection of its own, or a session of the embedded engine's
// worker: linked-rows.ts), reads the experiment's events in the export's order (one binary COPY on
// PostgreSQL, keyset pages on the embedded database), and posts the file's bytes as each row group
// is written. Nothing of the rows reaches the heap of the thread that serves participants.
import { workerData } from "node:worker_threads";
import {
  type EventExportRow,
  type EventFilter,
  EXPORT_SELECT,
  eventExportCopy,
  eventExportPages,
  type RunRows,
} from "@feedlab/projector/read-models/events/events.queries.ts";
import type { DbLink } from "@feedlab/sql";
import { type LinkedRows, openLinkedRows } from "../db/linked-rows.ts";
import { type CopyTuple, copyTuples } from "./copy-binary.ts";
import { type ExportContext, parquetColumns } from "./event-columns.ts";
import { type ParquetOptions, postParquet, type RowGroupWriter } from "./parquet-writer.ts";

/**
 * What the worker is given: the database, the events, the participants whose events it leaves out
 * (simulated ones), and the names the export adds (arms, layouts).
 */
export interface EventExportJob {
  readonly db: DbLink;
  readonly filter: EventFilter;
  readonly skippedUsers: readonly string[];
  readonly groupNames: [id: string, name: string][];
  readonly createdMs: number;
  readonly templateNames: [id: string, name: string][];
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
async function* pagesOf(db: RunRows, filter: EventFilter): AsyncGenerator<EventExportRow[]> {
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

/** Where the participant's id is in a COPY tuple of the export. */
const USER_FIELD = EXPORT_SELECT.findIndex(([name]) => name === "user_id");

/**
 * Writes `filter`'s events into `writer`, handing each part of the file to `out` as it is made, and
 * closes the connection once they are read. PostgreSQL sends them as one binary COPY, decoded where
 * the bytes lie (no row objects, strings or numbers made per event); the embedded database gives
 * pages of rows. Events of the participants in `skipped` (simulated ones, unless the export asks for
 * them; usually none) are left out.
 */
export async function writeEvents(
  db: LinkedRows,
  filter: EventFilter,
  writer: RowGroupWriter<EventExportRow>,
  out: (bytes: Uint8Array) => Promise<void>,
  skipped: ReadonlySet<string> = new Set(),
): Promise<void> {
  // A uuid's text is ASCII: read as latin1 it is the id as the database writes it.
  const kept = (t: CopyTuple) =>
    !skipped.has(
      t.bytes.toString(
        "latin1",
        t.start[USER_FIELD] as number,
        (t.start[USER_FIELD] as number) + (t.length[USER_FIELD] as number),
      ),
    );
  try {
    if (db.copyOut) {
      const add =
        skipped.size === 0
          ? writer.addTuple
          : (t: CopyTuple) => {
              if (kept(t)) writer.addTuple(t);
            };
      const tuples = copyTuples(EXPORT_SELECT.length, add);
      for await (const chunk of db.copyOut(eventExportCopy(filter))) {
        tuples.push(chunk);
        const bytes = writer.flush();
        if (bytes) await out(bytes);
      }
      tuples.end();
    } else {
      for await (const page of pagesOf(db.rows, filter)) {
        const bytes = writer.add(skipped.size === 0 ? page : page.filter((r) => !skipped.has(r.user_id)));
        if (bytes) await out(bytes);
      }
    }
  } finally {
    await db.close();
  }
  await out(writer.finish());
}

const job = workerData as EventExportJob | undefined;
if (job) {
  const db = await openLinkedRows(job.db);
  const context = {
    groupNames: new Map(job.groupNames),
    createdMs: job.createdMs,
    templateNames: new Map(job.templateNames),
  };
  await postParquet(eventParquet(context), (writer, out) =>
    writeEvents(db, job.filter, writer, out, new Set(job.skippedUsers)),
  );
}
