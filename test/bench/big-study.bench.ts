// `npm run bench -- big-study`: the console's reads at the size of a large study (issue "Performance at
// the size of a real study"): 10,000 participants in 4 arms, two sessions each, 5,000,000 events, and
// the read models the projector makes of them (session activity, evaluation counts). Each read is
// timed over HTTP against the server (median of 20) and beside its floor: the very SQL statements the
// server ran for it (captured from knex), run directly on the database with `pg`, as the server ran
// them (together). The participants CSV is timed in rows/s.
// Goals: each read p50 under 100 ms and within 3x its floor; the CSV at 100,000 rows/s or more.
// BENCH_PARTICIPANTS and BENCH_EVENTS override the size; runs on PostgreSQL (a throwaway cluster).
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import pg from "pg";
import { type Db, migrate, openDb } from "../../api/src/db/db.ts";
import { createEventStoreReader } from "../../api/src/events/event-store.read.ts";
import { createParticipantsService } from "../../api/src/participants/participants.service.ts";
import { createQualityService, excludedByRules } from "../../api/src/quality/quality.service.ts";
import { createCompletenessService } from "../../api/src/results/completeness.service.ts";
import { createStatsService } from "../../api/src/results/stats.service.ts";
import { startPostgres } from "../harness/postgres.ts";
import { insertEvaluationCounts, insertStudy } from "./study-seed.ts";
import { createBenchDatabase, startServer, timed } from "./support.ts";

export const name = "big-study";
export const description =
  "The console's reads of a 10,000-participant, 5M-event study over HTTP, each beside the same SQL run directly";

const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const ARMS = 4;
const TYPES = ["IMPRESSION", "FEED_CLICK", "VIDEO_PLAY", "VIDEO_ENDED", "LIKE", "VIDEO_PROGRESS"];

/** The study: arms, participants (most consented, some finished), two sessions each, events, read models. */
async function seed(db: Db): Promise<{ experiment: string; someone: string }> {
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
  await db.raw("analyze");
  const someone = (await db("users")
    .where({ experiment_id: experiment })
    .orderBy("login_id")
    .first("id")) as {
    id: string;
  };
  return { experiment, someone: someone.id };
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

/** Knex's `?` placeholders as PostgreSQL's `$n` (knex leaves `??` and `\\?` out of reads like these). */
const positional = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  const cluster = await startPostgres();
  try {
    const url = new URL(await createBenchDatabase(cluster.url, "feedlab_big_study_bench"));
    const { db, close } = openDb({ databaseUrl: url.href, dataDir: "" });
    const floors = new pg.Pool({ connectionString: url.href, max: 4 });
    const t = performance.now();
    const { experiment, someone } = await seed(db);
    figures.seeding = `${PARTICIPANTS} participants, ${EVENTS} events in ${((performance.now() - t) / 1000).toFixed(0)} s`;
    const server = await startServer({ DATABASE_URL: url.href, KAFKA_BROKERS: "" });
    try {
      const client = await server.admin();
      // The services the server answers these reads with, wired as it wires them, on this process's db.
      const deps = { db, now: () => new Date(), newId: randomUUID };
      const stats = createStatsService({
        ...deps,
        ruleBreakers: (id, rules, leftOut) => excludedByRules(db, id, rules, leftOut),
      });
      const participants = createParticipantsService(deps);
      const eventStore = createEventStoreReader(db, () => {
        throw new Error("no export here");
      });
      const at = `/api/v1/admin/experiments/${experiment}`;
      const reads: [string, string, () => Promise<unknown>][] = [
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
        [
          "completeness",
          `${at}/completeness`,
          () => createCompletenessService(deps).forExperiment(experiment),
        ],
        ["quality", `${at}/quality`, () => createQualityService({ db }).forExperiment(experiment)],
        [
          "a participant's quality",
          `${at}/quality?user_id=${someone}`,
          () => createQualityService({ db }).forExperiment(experiment, { user_id: someone }),
        ],
        [
          "a participant's trajectory",
          `/api/v1/admin/participants/${someone}/trajectory`,
          () => eventStore.trajectory(someone),
        ],
      ];
      for (const [label, path, direct] of reads) {
        const served = await timed(20, async () => {
          const r = await client.get(path);
          if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
        });
        const statements = await capture(db, direct);
        const floor =
          statements.length === 0
            ? Number.NaN
            : await timed(20, () =>
                Promise.all(statements.map((s) => floors.query(positional(s.sql), [...s.bindings]))),
              );
        figures[label] =
          `${served.toFixed(1)} ms, floor ${Number.isNaN(floor) ? "n/a" : `${floor.toFixed(1)} ms`} (${statements.length} statements), ratio ${Number.isNaN(floor) ? "n/a" : (served / floor).toFixed(1)}`;
      }
      const c = performance.now();
      const csv = await client.get(`${at}/participants?format=csv`);
      const seconds = (performance.now() - c) / 1000;
      if (csv.status !== 200) throw new Error(`participants CSV answered ${csv.status}`);
      figures["participants CSV"] = `${Math.round(PARTICIPANTS / seconds)} rows/s (${seconds.toFixed(2)} s)`;
    } finally {
      await server.stop();
      await floors.end();
      await close();
    }
  } finally {
    await cluster.stop();
  }
  return figures;
}
