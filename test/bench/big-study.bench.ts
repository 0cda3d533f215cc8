// `npm run bench -- big-study`: the console's reads at the size of a large study (issue "Performance at
// the size of a real study"): 10,000 participants in 4 arms, two sessions each, 5,000,000 events, and
// the read models the projector makes of them (session activity, evaluation counts, quality). Each read is
// timed over HTTP against the server (median of 20) and beside its floor: the very SQL statements the
// server ran for it (captured from knex), run directly on the database with `pg`, as the server ran
// them (together). The participants CSV and the wide CSV of a survey (three surveys, each answered by every
// participant) are timed in rows/s beside their statements run one after another, with the server's RSS.
// Goals: each read p50 under 100 ms and within 3x its floor; the CSVs at 100,000 rows/s or more.
// BENCH_PARTICIPANTS and BENCH_EVENTS override the size; runs on PostgreSQL (a throwaway cluster) and on
// the embedded database (PGlite: the floors run in this process before the server opens its directory),
// where the first maintenance pass after a start is timed last.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sumQualityParticipants } from "@feedlab/projector";
import { type Db, openDb } from "@feedlab/sql";
import type { Knex } from "knex";
import pg from "pg";
import type { Browser, BrowserContext } from "playwright-core";
import { migrate } from "../../api/src/db/db.ts";
import { MAINTAINED, maintainDatabase } from "../../api/src/db/maintenance.ts";
import { createEventStoreReader } from "../../api/src/events/event-store.read.ts";
import { participantsCsv } from "../../api/src/participants/participants.export.ts";
import { createParticipantsService } from "../../api/src/participants/participants.service.ts";
import { createQualityService, excludedByRules } from "../../api/src/quality/quality.service.ts";
import { createCompletenessService } from "../../api/src/results/completeness.service.ts";
import { createStatsService } from "../../api/src/results/stats.service.ts";
import { exportWideCsv } from "../../api/src/surveys/responses.csv.ts";
import { FULL_CHROMIUM, launchBrowser } from "../harness/browser.ts";
import { startPostgres } from "../harness/postgres.ts";
import { memoryOf } from "./proc.ts";
import { insertEvaluationCounts, insertStudy, insertSurveyResponses } from "./study-seed.ts";
import { createBenchDatabase, startServer, timed } from "./support.ts";

export const name = "big-study";
export const description =
  "The console's reads of a 10,000-participant, 5M-event study over HTTP, each beside the same SQL run directly";

const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const ARMS = 4;
/** BENCH_BACKENDS: postgres, pglite or both (the default), comma-separated. */
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",");
/** Questions of each of the three surveys (pre, post, inter-session), every participant answering each. */
const QUESTIONS = 10;
const TYPES = ["IMPRESSION", "FEED_CLICK", "VIDEO_PLAY", "VIDEO_ENDED", "LIKE", "VIDEO_PROGRESS"];

/**
 * The study: arms, participants (most consented, some finished), two sessions each, events, read models,
 * three surveys each answered by every participant.
 */
export async function seed(db: Db): Promise<{ experiment: string; someone: string; survey: string }> {
  await migrate(db);
  const { experiment, groups } = await insertStudy(db, "Big study", ARMS);
  await db.raw(
    `insert into users (id, experiment_id, login_id, group_id, created_at, consented_at, finished_at)
     select gen_random_uuid(), ?, 'worker-' || lpad(g::text, 6, '0'), (?::uuid[])[1 + g % ${ARMS}],
       timestamptz '2026-11-01 00:00:00+00' + g * interval '7 seconds',
       case when g % 10 <> 0 then timestamptz '2026-11-01 00:00:00+00' + g * interval '7 seconds' end,
       case when g % 5 = 0 then timestamptz '2026-11-20 00:00:00+00' + g * interval '1 second' end
     from generate_series(1, ?) g`,
    [experiment, groups.map((g) => g.id), PARTICIPANTS],
  );
  await db.raw(
    `insert into sessions (id, user_id, created_at)
     select gen_random_uuid(), u.id, u.created_at + s * interval '1 day'
     from users u, generate_series(0, 1) s where u.experiment_id = ?`,
    [experiment],
  );
  // Event g goes to participant g % P, in their first or second session by turns, a second apart;
  // every 50th participant's seq skips one number in each session (a lost batch).
  await db.raw(
    `insert into events (event_id, session_id, user_id, login_id, experiment_id, group_id, event_type,
       video_id, timestamp, received_at, watch_ratio, watch_duration, position_in_feed, algorithm_feed,
       algorithm_watch, payload, seq, log_partition, log_offset, ui_feed, ui_watch)
     select gen_random_uuid(), s.id, u.id, u.login_id, u.experiment_id, u.group_id,
       (array[${TYPES.map((t) => `'${t}'`).join(",")}])[1 + g % ${TYPES.length}],
       'video-' || (g % 500), timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second',
       timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second' + interval '80 milliseconds',
       case when g % 6 = 5 then (g % 100) / 100.0 end, case when g % 6 = 5 then g % 300 end,
       case when g % 6 = 0 then g % 20 end, 'popularity', 'similarity',
       jsonb_build_object('context', 'feed', 'n', g),
       g / ${PARTICIPANTS * 2} + 1 + case when u.n % 50 = 0 and g / ${PARTICIPANTS * 2} > 3 then 1 else 0 end,
       0, g, 'grid-desktop', 'grid-desktop'
     from generate_series(0, ? - 1) g
     join (select id, login_id, experiment_id, group_id, row_number() over (order by login_id) - 1 as n
           from users where experiment_id = ?) u on u.n = g % ${PARTICIPANTS}
     join (select id, user_id, row_number() over (partition by user_id order by created_at) - 1 as k
           from sessions) s on s.user_id = u.id and s.k = (g / ${PARTICIPANTS}) % 2`,
    [EVENTS, experiment],
  );
  // The read models as the projector leaves them for these events.
  await db.raw(
    `insert into session_activity (session_id, user_id, experiment_id, first_event_at, last_event_at,
       last_received_at, event_count, max_seq, seq_count, clock_offset_ms, implausible_times)
     select session_id, user_id, experiment_id, min(timestamp), max(timestamp), max(received_at), count(*),
       max(seq), count(seq), 80, 0
     from events where experiment_id = ? group by session_id, user_id, experiment_id`,
    [experiment],
  );
  await insertEvaluationCounts(db, experiment);
  // The quality read model: a session's pointer events, viewport and timeline as the fold leaves them.
  await db.raw(
    `insert into quality_sessions (session_id, user_id, experiment_id, events, pointer_events, viewport_width,
       first_at, last_at)
     select session_id, user_id, experiment_id, event_count, event_count / 10, 1280 + (event_count % 4) * 160,
       first_event_at, last_event_at
     from session_activity where experiment_id = ?`,
    [experiment],
  );
  await db.raw(
    `insert into quality_timelines (session_id, user_id, experiment_id, rank, folded, last_seq, last_at_ms,
       last_event_id, open, visible, focused, playing, active_ms, hidden_ms, watch_ms, visible_watch_ms,
       first_ms, end_ms)
     select session_id, user_id, experiment_id, -event_count, event_count, max_seq,
       (extract(epoch from last_event_at) * 1000)::bigint, gen_random_uuid(), false, true, true, false,
       event_count * 900, event_count * 100, event_count * 600, event_count * 550,
       (extract(epoch from first_event_at) * 1000)::bigint, (extract(epoch from last_event_at) * 1000)::bigint
     from session_activity where experiment_id = ?`,
    [experiment],
  );
  await sumQualityParticipants(db);
  const [survey = ""] = await insertSurveyResponses(db, experiment, QUESTIONS);
  await db.raw("analyze");
  const someone = (await db("users")
    .where({ experiment_id: experiment })
    .orderBy("login_id")
    .first("id")) as {
    id: string;
  };
  return { experiment, someone: someone.id, survey };
}

interface Statement {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** The SQL statements `work` sends through `db`, in the order it sends them. */
async function capture(db: Knex, work: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = [];
  const on = (q: { sql: string; bindings?: unknown[] }) =>
    seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on("query", on);
  try {
    await work();
  } finally {
    db.off("query", on);
  }
  return seen;
}

/**
 * A captured statement through knex's raw: knex hands the driver PostgreSQL's `$n` placeholders,
 * and its raw takes `?` (numbered in order of appearance, as knex numbers them).
 */
const viaKnex = (db: Db, s: Statement) =>
  db.raw(s.sql.replace(/\$\d+/g, "?"), [...s.bindings] as Knex.RawBinding[]);

/** A line on stderr while a long run goes on (the figures come at the end). */
const progress = (line: string) => console.error(`  ... ${line}`);

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Drains a stream (an export), as a download would. */
async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

/** Each read: its label, its path over HTTP, and the service call the server answers it with. */
function readsOf(
  db: Db,
  { experiment, someone, survey }: { experiment: string; someone: string; survey: string },
): [string, string, () => Promise<unknown>][] {
  // The services the server answers these reads with, wired as it wires them, on this process's db.
  const deps = { db, now: () => new Date(), newId: randomUUID };
  const stats = createStatsService({
    ...deps,
    ruleBreakers: (id, rules, leftOut) => excludedByRules(db, id, rules, leftOut),
  });
  const participants = createParticipantsService(deps);
  const quality = createQualityService({ db });
  const eventStore = createEventStoreReader(db, () => {
    throw new Error("no export here");
  });
  const at = `/api/v1/admin/experiments/${experiment}`;
  return [
    ["participants, first page", `${at}/participants`, () => participants.list(experiment, {})],
    [
      "participants, last seen first",
      `${at}/participants?sort=-last_seen_at`,
      () => participants.list(experiment, { sort: "-last_seen_at" }),
    ],
    [
      "participants, finished, id has 99, by id",
      `${at}/participants?status=finished&q=99&sort=login_id`,
      () => participants.list(experiment, { status: "finished", q: "99", sort: "login_id" }),
    ],
    ["stats", `${at}/stats`, () => stats.forExperiment(experiment)],
    ["completeness", `${at}/completeness`, () => createCompletenessService(deps).forExperiment(experiment)],
    ["quality", `${at}/quality`, () => quality.forExperiment(experiment)],
    [
      "a participant's quality",
      `/api/v1/admin/participants/${someone}/quality`,
      () => quality.forParticipant(someone),
    ],
    [
      "a participant's trajectory",
      `/api/v1/admin/participants/${someone}/trajectory`,
      () => eventStore.trajectory(someone),
    ],
    ["participants CSV", `${at}/participants?format=csv`, () => drain(participantsCsv(db, experiment))],
    [
      "pre survey's wide CSV",
      `/api/v1/admin/surveys/${survey}/responses/wide.csv`,
      () =>
        drain(
          exportWideCsv(db, {
            id: survey,
            questionIds: Array.from({ length: QUESTIONS }, (_, i) => `q${i + 1}`),
          }),
        ),
    ],
  ];
}

/**
 * Seeds the study, times each read's statements run directly (`runSql`: as the service sent them,
 * together; the CSV's one after another, as its export pages), then each read over HTTP from a fresh
 * `feedlab start` (`serve`, after `release` lets go of the database).
 */
async function measure(
  db: Db,
  runSql: (s: Statement) => Promise<unknown>,
  release: () => Promise<void>,
  serve: () => Promise<Awaited<ReturnType<typeof startServer>>>,
): Promise<Record<string, string>> {
  const figures: Record<string, string> = {};
  const t = performance.now();
  progress(`seeding ${PARTICIPANTS} participants and ${EVENTS} events`);
  const study = await seed(db);
  figures.seeding = `${PARTICIPANTS} participants, ${EVENTS} events, ${3 * PARTICIPANTS} survey responses in ${((performance.now() - t) / 1000).toFixed(0)} s`;
  const reads = readsOf(db, study);
  const floors = new Map<string, { ms: number; statements: number }>();
  progress(`seeded in ${figures.seeding.split(" in ").at(-1)}; timing each read's SQL directly`);
  for (const [label, , direct] of reads) {
    const statements = await capture(db, direct);
    const csv = label.endsWith("CSV");
    const ms = await timed(csv ? 5 : 20, async () => {
      if (!csv) return Promise.all(statements.map(runSql));
      for (const q of statements) await runSql(q);
    });
    floors.set(label, { ms, statements: statements.length });
  }
  await release();
  progress("timing each read over HTTP from a fresh feedlab start");
  const server = await serve();
  try {
    const client = await server.admin();
    // What any admin read costs over HTTP whatever it reads: the session's check, routing, one row,
    // the JSON (beside the small reads, whose floors hold none of it).
    const fixed = await timed(20, async () => {
      const r = await client.get(`/api/v1/admin/experiments/${study.experiment}`);
      if (r.status !== 200) throw new Error(`the experiment answered ${r.status}`);
    });
    figures["an admin request that reads one row"] = `${fixed.toFixed(1)} ms`;
    for (const [label, path] of reads) {
      const csv = label.endsWith("CSV");
      // The server's memory while it answers: sampled from /proc, as an operator would see it.
      const idle = memoryOf(server.child.pid).rss;
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, memoryOf(server.child.pid).rss);
      }, 10);
      const ms = await timed(csv ? 5 : 20, async () => {
        const r = await client.get(path);
        if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
      });
      clearInterval(sampler);
      const memory = `server RSS ${mb(idle)} -> ${mb(peak)}`;
      const floor = floors.get(label) ?? { ms: Number.NaN, statements: 0 };
      const rate = (x: number) => `${Math.round(PARTICIPANTS / (x / 1000))} rows/s`;
      figures[label] = csv
        ? `${rate(ms)} (${(ms / 1000).toFixed(2)} s), floor ${rate(floor.ms)} (${floor.statements} statements), ratio ${(ms / floor.ms).toFixed(1)}; ${memory}`
        : `${ms.toFixed(1)} ms, floor ${floor.ms.toFixed(1)} ms (${floor.statements} statements), ratio ${(ms / floor.ms).toFixed(1)}`;
    }
    if (process.env.BENCH_BROWSER !== "0") {
      progress("opening the console's pages in Chromium");
      const browser = await launchBrowser({ executablePath: FULL_CHROMIUM });
      try {
        Object.assign(figures, await firstScreens(browser, server.url, client.cookies, study));
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.stop();
  }
  return figures;
}

/** Times from navigation to a console page's first screen, median (fastest / slowest) of 5 loads each. */
async function firstScreens(
  browser: Browser,
  url: string,
  cookies: ReadonlyMap<string, string>,
  { experiment, someone }: { experiment: string; someone: string },
): Promise<Record<string, string>> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([...cookies].map(([name, value]) => ({ name, value, url })));
  const page = await context.newPage();
  // What a researcher sees first on each page: the participants table's first page, the results' cards,
  // the participant's quality and timeline.
  const pages: [string, string, () => Promise<unknown>][] = [
    [
      "console: experiment page, participants table",
      `/admin/experiments/${experiment}`,
      () =>
        page
          .getByRole("navigation", { name: "Participants pages" })
          .getByRole("status")
          .getByText(/Showing 1–50 of/)
          .waitFor(),
    ],
    [
      "console: results page",
      `/admin/experiments/${experiment}/results`,
      () => page.getByRole("heading", { name: "Data completeness" }).waitFor(),
    ],
    [
      "console: a participant's page",
      `/admin/participants/${someone}?experiment=${experiment}`,
      () =>
        Promise.all([
          page.getByRole("region", { name: "Quality" }).getByRole("row").first().waitFor(),
          page.getByRole("heading", { name: "Timeline" }).waitFor(),
        ]),
    ],
  ];
  const figures: Record<string, string> = {};
  try {
    for (const [label, path, shown] of pages) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await page.goto(`${url}${path}`);
        await shown();
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const ms = (x: number | undefined) => `${Math.round(x ?? Number.NaN)} ms`;
      figures[label] = `${ms(times[2])} (${ms(times[0])} / ${ms(times[4])}; goal under 1 s)`;
    }
  } finally {
    await context.close();
  }
  return figures;
}

/**
 * The embedded server's first maintenance pass after a start, on the big study's directory opened
 * afresh (PGlite's counts of changes start at zero): its time and longest statement, in which every other
 * statement waits; beside it the same pass over every table, due or not (what every pass did before
 * 2026-12-03).
 */
async function maintenanceAfterStart(dir: string): Promise<Record<string, string>> {
  progress("the first maintenance pass after a start");
  const { db, close } = openDb({ databaseUrl: "", dataDir: dir });
  try {
    // The engine's start and first statement (catalogs read cold) are no part of a pass a minute later.
    await db.raw("select count(*) from pg_class");
    const pass = await maintainDatabase(db);
    const longest = Math.max(0, ...pass.statements.map((s) => s.ms));
    let all = 0;
    let allLongest = { sql: "", ms: 0 };
    for (const { table, churns } of MAINTAINED) {
      const sql = churns ? `VACUUM (ANALYZE) ${table}` : `ANALYZE ${table}`;
      const t0 = performance.now();
      await db.raw(sql);
      const ms = performance.now() - t0;
      all += ms;
      if (ms > allLongest.ms) allLongest = { sql, ms };
    }
    return {
      "PGlite: first maintenance pass after a start": `${pass.ms} ms, ${pass.statements.length} statements (${pass.skipped} tables not due), longest ${longest} ms; every table: ${Math.round(all)} ms, longest ${Math.round(allLongest.ms)} ms (${allLongest.sql})`,
    };
  } finally {
    await close();
  }
}

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  if (BACKENDS.includes("postgres")) {
    const cluster = await startPostgres();
    try {
      const url = await createBenchDatabase(cluster.url, "feedlab_big_study_bench");
      const { db, close } = openDb({ databaseUrl: url, dataDir: "" });
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      try {
        const got = await measure(
          db,
          (s) => pool.query(s.sql, [...s.bindings]),
          async () => {},
          () => startServer({ DATABASE_URL: url, KAFKA_BROKERS: "" }),
        );
        for (const [k, v] of Object.entries(got)) figures[`PostgreSQL: ${k}`] = v;
      } finally {
        await pool.end();
        await close();
      }
    } finally {
      await cluster.stop();
    }
  }
  if (BACKENDS.includes("pglite")) {
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-big-study-"));
    try {
      const { db, close } = openDb({ databaseUrl: "", dataDir: dir });
      let closed = false;
      try {
        const got = await measure(
          db,
          (s) => viaKnex(db, s),
          async () => {
            closed = true;
            await close();
          },
          // The server opens the same data directory once this process has let go of it.
          () => startServer({ FEEDLAB_DATA_DIR: dir, KAFKA_BROKERS: "" }),
        );
        for (const [k, v] of Object.entries(got)) figures[`PGlite: ${k}`] = v;
      } finally {
        if (!closed) await close();
      }
      Object.assign(figures, await maintenanceAfterStart(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return figures;
}
