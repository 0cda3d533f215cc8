// The memory and speed floor of the Parquet export (results benchmark), run as its own process: the
// export's own pipeline (its pages, its columns, its row group writer) over the same database, in
// this thread, written to /dev/null, with the export worker's heap limit given on the command line
// and no server, HTTP or worker thread: the cheapest way to do the same work here. Prints one JSON
// line: rows per second and this process's RSS before and at its peak. DATABASE_URL, EXPERIMENT_ID.
import { openLinkedRows } from "../../api/src/db/linked-rows.ts";
import { eventParquet, writeEvents } from "../../api/src/events/event-export.worker.ts";
import { rowGroupWriter } from "../../api/src/events/parquet-writer.ts";
import { memoryOf } from "./proc.ts";

const db = await openLinkedRows({ databaseUrl: process.env.DATABASE_URL ?? "" });
const experimentId = process.env.EXPERIMENT_ID ?? "";
const groups = (await db.rows("select id, name from groups where experiment_id = ?", [experimentId])) as {
  id: string;
  name: string;
}[];
const idle = memoryOf(process.pid).rss;
const start = performance.now();
const writer = rowGroupWriter(
  eventParquet({ groupNames: new Map(groups.map((g) => [g.id, g.name])), createdMs: 0 }),
);
let bytes = 0;
await writeEvents(db, { experimentId }, writer, async (b) => {
  bytes += b.byteLength;
});
const seconds = (performance.now() - start) / 1000;
const rows = writer.rows;
console.log(
  JSON.stringify({
    rows,
    bytes,
    rowsPerSecond: rows / seconds,
    idleRss: idle,
    peakRss: memoryOf(process.pid).hwm,
  }),
);
