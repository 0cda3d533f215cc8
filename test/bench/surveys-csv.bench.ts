// `node test/bench/run.ts surveys-csv`: CSV export of 100,000 survey responses with 10 questions each
// (1,000,000 rows), streamed over HTTP from an API process of its own. Figures: rows per second of the
// download and the API process's peak memory, on PostgreSQL (a throwaway cluster) and on PGlite,
// each beside its floor (surveys-csv.floor.ts: the export function alone in a process of its own).
// Goal (issue "Surveys end to end"): at least 100,000 rows/s, streamed, peak RSS under 150 MB.
// BENCH_RESPONSES overrides the number of responses; BENCH_BACKENDS=postgres (or pglite) runs one.
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Db, openDb } from "@feedlab/sql";
import pg from "pg";
import { migrate } from "../../api/src/db/db.ts";
import { COMPILE_CACHE_DIR, SERVER_V8_FLAGS } from "../../bin/node-settings.mjs";
import { startPostgres } from "../harness/postgres.ts";
import { memoryOf } from "./proc.ts";
import { benchAnswers, benchQuestions } from "./study-seed.ts";
import { runFloorProcess, startServer } from "./support.ts";

export const name = "surveys-csv";
export const description =
  "CSV export of 100,000 responses x 10 questions (1M rows), streamed over HTTP; rows/s and API peak RSS, beside a floor: the same export function alone in a Node process of its own, to /dev/null";

const RESPONSES = Number(process.env.BENCH_RESPONSES ?? 100_000);
const QUESTIONS = 10;
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",").map((s) => s.trim());

/** Schema, one experiment, an active pre survey, RESPONSES participants each with one response. */
async function seed(db: Db, batch: number): Promise<string> {
  await migrate(db);
  const experiment = randomUUID();
  const group = randomUUID();
  const survey = randomUUID();
  await db("experiments").insert({ id: experiment, name: "Bench", status: "running" });
  await db("groups").insert({
    id: group,
    experiment_id: experiment,
    name: "Arm",
    algorithm_feed: "recency",
    algorithm_watch: "recency",
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  });
  await db("surveys").insert({
    id: survey,
    experiment_id: experiment,
    kind: "pre",
    name: JSON.stringify("Bench"),
    is_active: true,
    questions: JSON.stringify(benchQuestions(QUESTIONS)),
  });
  const template = benchAnswers(QUESTIONS);
  for (let from = 1; from <= RESPONSES; from += batch) {
    const to = Math.min(RESPONSES, from + batch - 1);
    await db.raw(
      `insert into users (id, experiment_id, login_id, group_id)
       select gen_random_uuid(), ?, 'participant-' || g, ? from generate_series(?::int, ?::int) g`,
      [experiment, group, from, to],
    );
    await db.raw(
      `insert into survey_responses (id, survey_id, user_id, answers, created_at)
       select gen_random_uuid(), ?, u.id, replace(?, '__N__', u.login_id)::jsonb,
              timestamptz '2026-01-01 00:00:00+00' + g * interval '1 millisecond'
       from generate_series(?::int, ?::int) g
       join users u on u.experiment_id = ? and u.login_id = 'participant-' || g`,
      [survey, template, from, to, experiment],
    );
  }
  return survey;
}

/**
 * Starts the API exactly as production does (`feedlab start` through bin/feedlab.mjs, which adds the
 * server's V8 flags and Node's compile cache, role `all`; `startServer`) on the seeded database,
 * downloads the CSV, returns the figures. `nodeOptions` sets another young generation than the
 * launcher's, for comparison. Memory is read from /proc (Linux), as an operator would see it.
 */
async function measure(env: Record<string, string>, surveyId: string, nodeOptions: string) {
  const server = await startServer({
    ...env,
    KAFKA_BROKERS: "",
    NODE_OPTIONS: nodeOptions,
  });
  try {
    // The launcher replaces itself with the server (same pid).
    const pid = server.child.pid;
    const admin = await server.admin();
    const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const idle = memoryOf(pid);
    let sampledPeak = idle.rss;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss);
    }, 20);

    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/admin/surveys/${surveyId}/responses/csv`, {
      headers: { cookie },
    });
    if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
    let firstByte = 0;
    let bytes = 0;
    let records = 0;
    let previousCr = false;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      if (firstByte === 0) firstByte = performance.now() - started;
      bytes += chunk.length;
      // Records end in CRLF; the text answers hold LF only, so counting CRLF counts records.
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 10 && previousCr) records++;
        previousCr = b === 13;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const end = memoryOf(pid);
    const rows = records - 1;
    if (rows !== RESPONSES * QUESTIONS)
      throw new Error(`expected ${RESPONSES * QUESTIONS} rows, got ${rows}`);
    return {
      rows,
      seconds,
      rowsPerSecond: rows / seconds,
      megabytes: bytes / 2 ** 20,
      firstByteMs: firstByte,
      idleRss: idle.rss,
      sampledPeakRss: Math.max(sampledPeak, end.rss),
      maxRss: end.hwm,
    };
  } finally {
    await server.stop();
  }
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/**
 * The first setting is `feedlab start` as shipped (bin/node-settings.mjs: 8 MB semi-spaces); the
 * others show what the young generation's size is worth here: the 4 MB an earlier release chose for
 * this export, and V8's default on this machine (16 MB).
 */
const V8_SETTINGS: readonly (readonly [string, string])[] = [
  ["feedlab start", ""],
  ["4 MB semi-space", "--max-semi-space-size=4"],
  ["V8 default semi-space", "--max-semi-space-size=16"],
];

/**
 * The floor: surveys-csv.floor.ts in a process of its own (same Node, same V8 settings as the server),
 * exporting the same survey with the same function to /dev/null.
 */
function floor(env: Record<string, string>, surveyId: string) {
  return runFloorProcess<{ rows: number; rowsPerSecond: number; idleRss: number; peakRss: number }>(
    "surveys-csv.floor.ts",
    SERVER_V8_FLAGS,
    { ...env, SURVEY_ID: surveyId },
  );
}

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  // From its second start on, `feedlab start` runs without Node's TypeScript stripper (20-25 MB).
  figures["compile cache"] = existsSync(COMPILE_CACHE_DIR) ? "warm" : "cold at the first start";
  const measureAll = async (
    backend: string,
    env: Record<string, string>,
    surveyId: string,
    seedSeconds: number,
  ) => {
    figures[`${backend}: seeding`] = `${RESPONSES} responses in ${seedSeconds.toFixed(1)} s`;
    const f = floor(env, surveyId);
    figures[`${backend}, floor (the export function alone, own process): rows/s`] = Math.round(
      f.rowsPerSecond,
    );
    figures[`${backend}, floor: RSS idle -> peak`] = `${mb(f.idleRss)} -> ${mb(f.peakRss)}`;
    for (const [setting, nodeOptions] of V8_SETTINGS) {
      const m = await measure(env, surveyId, nodeOptions);
      const label = `${backend}, ${setting}`;
      figures[`${label}: rows/s`] =
        `${Math.round(m.rowsPerSecond)} (${m.rows} rows, ${m.megabytes.toFixed(0)} MB in ${m.seconds.toFixed(2)} s, first byte ${m.firstByteMs.toFixed(0)} ms; ${(m.rowsPerSecond / f.rowsPerSecond).toFixed(2)} of the floor)`;
      figures[`${label}: RSS idle -> peak`] =
        `${mb(m.idleRss)} -> ${mb(m.sampledPeakRss)} (since start ${mb(m.maxRss)}; peak ${(m.sampledPeakRss / f.peakRss).toFixed(2)}x the floor's)`;
    }
  };

  if (BACKENDS.includes("postgres")) {
    const server = await startPostgres();
    try {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query("CREATE DATABASE feedlab_bench");
      await admin.end();
      const url = new URL(server.url);
      url.pathname = "/feedlab_bench";
      const t = performance.now();
      const { db, close } = openDb({ databaseUrl: url.href, dataDir: "" });
      const surveyId = await seed(db, RESPONSES);
      await db.raw("analyze");
      await close();
      const seeded = (performance.now() - t) / 1000;
      await measureAll("PostgreSQL", { DATABASE_URL: url.href }, surveyId, seeded);
    } finally {
      await server.stop();
    }
  }

  if (BACKENDS.includes("pglite")) {
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-bench-"));
    try {
      const t = performance.now();
      const { db, close } = openDb({ databaseUrl: null, dataDir: dir });
      const surveyId = await seed(db, 10_000);
      await close();
      const seeded = (performance.now() - t) / 1000;
      await measureAll("PGlite", { DATABASE_URL: "", FEEDLAB_DATA_DIR: dir }, surveyId, seeded);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return figures;
}
