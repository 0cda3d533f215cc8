// `node test/bench/run.ts feed`: latency of GET /feed and GET /feed/{id}/related for each built-in
// recommender at a fixed request rate (open loop), served by `feedlab start` in its own process, on
// an experiment with 10,000 videos in its pool and 1,000,000 stored events (plus the read models and
// model output they give). Goal (issue "Recommendation serving"): p99 under 15 ms at 500 requests/s.
// Each phase (a recommender and a page) runs after a warm-up at the same rate: steady state, with the
// server's caches filled as a long-running server has them. Watch pages open videos as skewed as plays.
// BENCH_RATE, BENCH_SECONDS, BENCH_VIDEOS, BENCH_EVENTS override the sizes; BENCH_BACKENDS=pglite
// (default) or postgres or both, comma-separated.
import os from "node:os";
import { BUILTIN_KEYS, benchDatabase, openLoop, type Seeded, seed, summary } from "./feed-data.ts";
import { percentile, startServer } from "./support.ts";

export const name = "feed";
export const description =
  "GET /feed and /feed/{id}/related per built-in at a fixed rate: 10,000 pool videos, 1,000,000 stored events; p50/p99 (goal p99 < 15 ms at 500 req/s)";

const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const VIDEOS = Number(process.env.BENCH_VIDEOS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite").split(",").map((s) => s.trim()) as (
  | "pglite"
  | "postgres"
)[];

async function measure(url: string, data: Seeded, key: string, surface: "feed" | "watch", seconds: number) {
  const users = data.clients[key] ?? [];
  let failures = 0;
  const fire = async (i: number) => {
    const u = users[i % users.length];
    if (!u) return false;
    // Most requests are first pages; one in five asks for the second page.
    const offset = i % 5 === 4 ? 20 : 0;
    // The current video of a watch page is drawn like plays are (the cube of a uniform number over
    // the pool, as seeded): participants open popular videos more often.
    const current = data.videoIds[Math.floor(data.videoIds.length * Math.random() ** 3)];
    const path = surface === "feed" ? "/feed" : `/feed/${current}/related`;
    const res = await fetch(`${url}${path}?session_id=${u.sessionId}&limit=20&offset=${offset}`, {
      headers: { cookie: u.cookie },
    });
    const text = await res.text();
    const good = res.status === 200 && (JSON.parse(text) as { items: unknown[] }).items.length === 20;
    if (!good && failures++ < 3)
      console.error(`  ${key} ${surface}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return good;
  };
  return openLoop(RATE, seconds, fire);
}

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  for (const backend of BACKENDS) {
    const database = await benchDatabase(backend);
    try {
      const t = performance.now();
      const data = await seed(database.db, {
        videos: VIDEOS,
        events: EVENTS,
        users: 5000,
        groups: BUILTIN_KEYS,
        clientsPerGroup: 200,
      });
      await database.closeSeeder();
      const label = database.label;
      figures[`${label}: seeded`] =
        `${data.counts.videos} videos, ${data.counts.events} events, ${data.counts.watched_videos} watched rows, ${data.counts.co_views} co-view pairs, ${data.counts.recommendation_cache} CF rows, ${data.counts.item_similarity} learned neighbours in ${((performance.now() - t) / 1000).toFixed(0)} s`;
      const server = await startServer(database.env);
      try {
        for (const key of BUILTIN_KEYS) {
          for (const surface of ["feed", "watch"] as const) {
            await measure(server.url, data, key, surface, WARMUP_SECONDS);
            const r = await measure(server.url, data, key, surface, SECONDS);
            figures[`${label}: ${key} ${surface === "feed" ? "/feed" : "related"}`] = summary(r);
            console.error(`  ${label}: ${key} ${surface}: ${summary(r)}`);
            figures[`${label}: ${key} ${surface} p99 (ms)`] = Number(percentile(r.latencies, 99).toFixed(1));
          }
        }
        figures[`${label}: server peak RSS (MB)`] = server.peakRssMb();
        figures[`${label}: machine load average (1 min) at the end`] = os.loadavg()[0]?.toFixed(2) ?? "";
      } finally {
        await server.stop();
      }
    } finally {
      await database.cleanup();
    }
  }
  return figures;
}
