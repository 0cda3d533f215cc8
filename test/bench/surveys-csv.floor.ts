// The floor of the surveys-csv benchmark, run as its own process: the same export function the
// server uses (exportResponsesCsv) over the same database, written to /dev/null, with no server, HTTP
// or other modules loaded: the cheapest way to do the same work here. Prints one JSON line: rows per
// second and this process's RSS before and at its peak. DATABASE_URL or FEEDLAB_DATA_DIR, SURVEY_ID.
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { openDb } from "@feedlab/sql";
import { exportResponsesCsv } from "../../api/src/surveys/responses.csv.ts";
import { memoryOf } from "./proc.ts";

const { db, close } = openDb({
  databaseUrl: process.env.DATABASE_URL || null,
  dataDir: process.env.FEEDLAB_DATA_DIR ?? "",
});
await db.raw("select 1");
const idle = memoryOf(process.pid).rss;
let lines = 0;
const start = performance.now();
await pipeline(
  exportResponsesCsv(db, process.env.SURVEY_ID ?? ""),
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
      done();
    },
  }),
);
const seconds = (performance.now() - start) / 1000;
const rows = lines - 1;
console.log(
  JSON.stringify({ rows, rowsPerSecond: rows / seconds, idleRss: idle, peakRss: memoryOf(process.pid).hwm }),
);
await close();
