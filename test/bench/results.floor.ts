// The memory and speed floor of the Parquet export (results benchmark), run as its own process: the
// export's own pipeline (its pages, its columns, its row group writer) over the same database, in
// this thread, written to /dev/null, with the export worker's heap limit given on the command line
// and no server, HTTP or worker thread: the cheapest way to do the same work here. Prints one JSON
// line: rows per second and this process's RSS before and at its peak. DATABASE_URL, EXPERIMENT_ID.
import { openLinkedDb } from "../../api/src/db/clients.ts";
import { eventParquet, pagesOf } from "../../api/src/events/event-export.worker.ts";
import { rowGroupWriter } from "../../api/src/events/parquet-writer.ts";
import { memoryOf } from "./proc.ts";

const db = openLinkedDb({ databaseUrl: process.env.DATABASE_URL ?? "" });
const experimentId = process.env.EXPERIMENT_ID ?? "";
const groups = (await db("groups").where({ experiment_id: experimentId }).select("id", "name")) as {
  id: string;
  name: string;
}[];
const idle = memoryOf(process.pid).rss;
const start = performance.now();
const writer = rowGroupWriter(
  eventParquet({ groupNames: new Map(groups.map((g) => [g.id, g.name])), createdMs: 0 }),
);
let rows = 0;
let bytes = 0;
for await (const page of pagesOf(db, { experimentId })) {
  rows += page.length;
  bytes += writer.add(page)?.byteLength ?? 0;
}
bytes += writer.finish().byteLength;
const seconds = (performance.now() - start) / 1000;
console.log(
  JSON.stringify({
    rows,
    bytes,
    rowsPerSecond: rows / seconds,
    idleRss: idle,
    peakRss: memoryOf(process.pid).hwm,
  }),
);
await db.destroy();
