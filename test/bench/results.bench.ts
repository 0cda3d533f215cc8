import { EXPORT_SELECT, eventExportCopy } from "@feedlab/projector";
import { type Db, openDb } from "@feedlab/sql";
import { migrate } from "../../api/src/db/db.ts";
import { openLinkedRows } from "../../api/src/db/linked-rows.ts";
import { copyTuples } from "../../api/src/events/copy-binary.ts";
import { EXPORT_HEAP } from "../../api/src/events/parquet.ts";
import { SERVER_ENV } from "../../bin/node-settings.mjs";
import { startPostgres } from "../harness/postgres.ts";
import { memoryOf } from "./proc.ts";
import { insertEvaluationCounts, insertStudy } from "./study-seed.ts";
import { createBenchDatabase, runFloorProcess, startServer, timed } from "./support.ts";

export const name = "results";
export const description =
  "Stats and the Parquet export of an experiment with 1M events; each against the cheapest way to do the same work";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const PARTICIPANTS = 2000;
const ARMS = 3;
const TYPES = ["IMPRESSION", "FEED_CLICK", "VIDEO_PLAY", "VIDEO_ENDED", "LIKE", "VIDEO_PROGRESS"];

/** An experiment, three arms, 2,000 participants, their events and the evaluation counts they make. */
async function seed(db: Db): Promise<string> {
  await migrate(db);
  const { experiment, groups } = await insertStudy(db, "Bench", ARMS);
  await db.raw(
    `insert into users (id, experiment_id, login_id, group_id)
     select gen_random_uuid(), ?, 'p-' || g, (array[?, ?, ?]::uuid[])[1 + g % 3]
     from generate_series(1, ?) g`,
    [experiment, ...groups.map((g) => g.id), PARTICIPANTS],
  );
  // Events: participant n gets every PARTICIPANTS-th event, types in turn, a second apart.
  await db.raw(
    `insert into events (event_id, session_id, user_id, login_id, experiment_id, group_id, event_type,
       video_id, timestamp, received_at, watch_ratio, watch_duration, position_in_feed, algorithm_feed,
       algorithm_watch, payload, seq, log_partition, log_offset, ui_feed, ui_watch)
     select gen_random_uuid(), u.id, u.id, u.login_id, u.experiment_id, u.group_id,
       (array[${TYPES.map((t) => `'${t}'`).join(",")}])[1 + g % ${TYPES.length}],
       'video-' || (g % 500), timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second',
       timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second' + interval '80 milliseconds',
       case when g % 6 = 5 then (g % 100) / 100.0 end, case when g % 6 = 5 then g % 300 end,
       case when g % 6 = 0 then g % 20 end, 'popularity', 'similarity',
       jsonb_build_object('context', 'feed', 'n', g), g / ${PARTICIPANTS} + 1, 0, g,
       'grid-desktop', 'grid-desktop'
     from generate_series(0, ? - 1) g
     join (select id, login_id, experiment_id, group_id, row_number() over (order by login_id) - 1 as n
           from users where experiment_id = ?) u on u.n = g % ${PARTICIPANTS}`,
    [EVENTS, experiment],
  );
  // The evaluation read model as the projector leaves it for these events.
  await insertEvaluationCounts(db, experiment);
  await db.raw("analyze");
  return experiment;
}

/**
 * Downloads the experiment's events export in `format` from a fresh `feedlab start` process: rows/s,
 * megabytes, and the process's resident memory before and at its peak (sampled every 20 ms).
 */
async function measureExport(databaseUrl: string, experiment: string, format: "csv" | "parquet") {
  const server = await startServer({ DATABASE_URL: databaseUrl, KAFKA_BROKERS: "" });
  try {
    const client = await server.admin();
    const pid = server.child.pid;
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const idle = memoryOf(pid).rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(pid).rss);
    }, 20);
    const t = performance.now();
    const res = await fetch(`${server.url}/api/v1/admin/experiments/${experiment}/events?format=${format}`, {
      headers: { cookie },
    });
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    if (res.status !== 200) throw new Error(`${format} export answered ${res.status}`);
    return {
      seconds,
      rowsPerSecond: EVENTS / seconds,
      megabytes: Math.round(bytes / 2 ** 20),
      idleMb: Math.round(idle / 2 ** 20),
      peakMb: Math.round(peak / 2 ** 20),
    };
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  const cluster = await startPostgres();
  try {
    const url = new URL(await createBenchDatabase(cluster.url, "feedlab_results_bench"));
    const { db, close } = openDb({ databaseUrl: url.href, dataDir: "" });
    let experiment: string;
    try {
      const t = performance.now();
      experiment = await seed(db);
      figures.seeding = `${EVENTS} events in ${((performance.now() - t) / 1000).toFixed(1)} s`;
      // Floors, in this process on the same database.
      const floorStats = await timed(20, () =>
        db("evaluation_counts")
          .where({ experiment_id: experiment })
          .groupBy("group_id")
          .select(
            "group_id",
            db.raw("sum(impressions), sum(feed_clicks), sum(plays), sum(completions), sum(likes)"),
          ),
      );
      figures["stats floor: one aggregate query (median)"] = `${floorStats.toFixed(1)} ms`;
      // The cheapest way to read the rows here: the export's own COPY statement, tuples counted.
      const reader = await openLinkedRows({ databaseUrl: url.href });
      const t2 = performance.now();
      let rows = 0;
      const tuples = copyTuples(EXPORT_SELECT.length, () => rows++);
      for await (const chunk of reader.copyOut?.(eventExportCopy({ experimentId: experiment })) ?? [])
        tuples.push(chunk);
      tuples.end();
      const floorSeconds = (performance.now() - t2) / 1000;
      await reader.close();
      figures["export floor: read the rows (binary COPY, counted)"] =
        `${Math.round(rows / floorSeconds)} rows/s (${rows} rows in ${floorSeconds.toFixed(1)} s)`;
      figures._floorRowsPerSecond = rows / floorSeconds;
    } finally {
      await close();
    }

    // Memory has a floor of its own: the plain CSV export of the same events, on a fresh process too
    // (this machine's memory reclaim makes RSS vary from run to run).
    const csv = await measureExport(url.href, experiment, "csv");
    const parquet = await measureExport(url.href, experiment, "parquet");
    figures["Parquet export over HTTP"] =
      `${Math.round(parquet.rowsPerSecond)} rows/s (${EVENTS} rows, ${parquet.megabytes} MB in ${parquet.seconds.toFixed(1)} s)`;
    figures["Parquet floor / export"] = (Number(figures._floorRowsPerSecond) / parquet.rowsPerSecond).toFixed(
      1,
    );
    figures["API RSS idle -> peak, Parquet export"] = `${parquet.idleMb} MB -> ${parquet.peakMb} MB`;
    figures["RSS floor: the same events as CSV"] =
      `${csv.idleMb} MB -> ${csv.peakMb} MB (${Math.round(csv.rowsPerSecond)} rows/s)`;
    figures["Parquet peak / CSV peak"] = (parquet.peakMb / csv.peakMb).toFixed(2);
    delete figures._floorRowsPerSecond;
    // The export's own pipeline in a process of its own, in its main thread with the export worker's
    // heap limits (V8's young generation is three semi-spaces) and the server's malloc arenas.
    const floor = runFloorProcess<{ rowsPerSecond: number; idleRss: number; peakRss: number }>(
      "results.floor.ts",
      [
        `--max-old-space-size=${EXPORT_HEAP.maxOldGenerationSizeMb}`,
        `--max-semi-space-size=${Math.round(EXPORT_HEAP.maxYoungGenerationSizeMb / 3)}`,
      ],
      { ...SERVER_ENV, DATABASE_URL: url.href, EXPERIMENT_ID: experiment },
    );
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    figures["Parquet floor: the export's pipeline alone, to /dev/null"] =
      `${Math.round(floor.rowsPerSecond)} rows/s, RSS ${mb(floor.idleRss)} MB -> ${mb(floor.peakRss)} MB`;
    figures["Parquet export / its pipeline alone (rows/s)"] = (
      parquet.rowsPerSecond / floor.rowsPerSecond
    ).toFixed(2);
    figures["RSS the export adds: server / pipeline alone"] =
      `${parquet.peakMb - parquet.idleMb} MB / ${mb(floor.peakRss - floor.idleRss)} MB`;

    const server = await startServer({ DATABASE_URL: url.href, KAFKA_BROKERS: "" });
    try {
      const client = await server.admin();
      const stats = await timed(20, async () => {
        const r = await client.get(`/api/v1/admin/experiments/${experiment}/stats`);
        if (r.status !== 200) throw new Error(`stats answered ${r.status}`);
      });
      figures["GET .../stats over HTTP (median of 20)"] = `${stats.toFixed(1)} ms`;
      figures["stats / floor"] = (
        stats / Number.parseFloat(String(figures["stats floor: one aggregate query (median)"]))
      ).toFixed(1);
    } finally {
      await server.stop();
    }
  } finally {
    await cluster.stop();
  }
  return figures;
}
