// `node test/bench/run.ts external`: one API process (`feedlab start`, its own process) carries 1,000
// participants whose feed comes from an external recommender that answers after 4.9 s (the spec's
// default timeout is 5 s), while other participants use a built-in at a fixed rate. The spec says
// about 20 such slow calls saturate its 4 workers; the goal (issue "Recommendation serving") is all
// 1,000 concurrent requests answered correctly with built-in p99 under 50 ms.
// BENCH_EXTERNAL_USERS, BENCH_EXTERNAL_DELAY_MS, BENCH_BUILTIN_RATE, BENCH_SECONDS, BENCH_VIDEOS,
// BENCH_EVENTS and BENCH_BACKENDS (pglite default, or postgres) override the defaults.
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { expectedIds } from "./external-ranking.ts";
import { type BenchUser, benchDatabase, type Seeded } from "./feed-data.ts";
import { floorRequest, get, openLoop, summary } from "./load.ts";
import { percentile, startFloorServer, startServer } from "./support.ts";

export const name = "external";
export const description =
  "1,000 concurrent feed requests to an external recommender answering after 4.9 s (timeout 5 s), all checked, while built-in feed requests run at a fixed rate; one API process";

const USERS = Number(process.env.BENCH_EXTERNAL_USERS ?? 1000);
const DELAY_MS = Number(process.env.BENCH_EXTERNAL_DELAY_MS ?? 4900);
const BUILTIN_RATE = Number(process.env.BENCH_BUILTIN_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const VIDEOS = Number(process.env.BENCH_VIDEOS ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite").split(",").map((s) => s.trim()) as (
  | "pglite"
  | "postgres"
)[];
const KEY = "slow-ext";

interface FakeReport {
  calls: number;
  maxInFlight: number;
  inFlight: number;
}

function startFake(videoIds: string[]) {
  const worker = new Worker(path.join(import.meta.dirname, "external.server.ts"), {
    workerData: { delayMs: DELAY_MS, videoIds },
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string } & T) => {
        if (m.type !== type) return;
        worker.off("message", on);
        resolve(m);
      };
      worker.on("message", on);
    });
  return {
    ready: next<{ port: number }>("ready"),
    report: () => {
      const r = next<FakeReport>("report");
      worker.postMessage({ type: "report" });
      return r;
    },
    close: () => worker.terminate(),
  };
}

/**
 * The load: each slow participant starts at a random moment of the first DELAY_MS, then asks again
 * as soon as answered, so USERS requests are in flight from then on; once they are, built-in
 * requests at BUILTIN_RATE. `slow` answers null when right, else what was wrong.
 */
async function load(
  data: Seeded,
  fake: ReturnType<typeof startFake>,
  slow: (u: BenchUser, expected: readonly string[]) => Promise<string | null>,
  builtinRequest: (i: number) => Promise<boolean>,
) {
  const until = performance.now() + SECONDS * 1000;
  let correct = 0;
  let wrong = 0;
  let firstWrong = "";
  const latencies: number[] = [];
  const loops = data.fresh.map(async (u) => {
    await new Promise((r) => setTimeout(r, Math.random() * DELAY_MS));
    const expected = expectedIds(u.userId, data.videoIds, 21).slice(0, 20);
    while (performance.now() < until) {
      const t = performance.now();
      const problem = await slow(u, expected).catch((err: unknown) => String(err));
      if (problem === null) correct++;
      else {
        wrong++;
        firstWrong ||= problem;
      }
      latencies.push(performance.now() - t);
    }
  });
  await new Promise((r) => setTimeout(r, DELAY_MS + 500));
  const fakeDuring = await fake.report();
  const builtin = await openLoop(
    BUILTIN_RATE,
    Math.max(1, SECONDS - (DELAY_MS + 500) / 1000 - 1),
    builtinRequest,
  );
  await Promise.all(loops);
  const fakeAfter = await fake.report();
  latencies.sort((a, b) => a - b);
  return { correct, wrong, firstWrong, latencies, builtin, fakeDuring, fakeAfter };
}

export async function run(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = {};
  for (const backend of BACKENDS) {
    const database = await benchDatabase(backend);
    let fake: ReturnType<typeof startFake> | null = null;
    try {
      const data = await (async () => {
        const { seed } = await import("./feed-data.ts");
        return seed(database.db, {
          videos: VIDEOS,
          events: EVENTS,
          users: 5000,
          groups: ["recency", KEY],
          clientsPerGroup: 200,
          fresh: { group: KEY, count: USERS },
        });
      })();
      let builtinBytes = 0;
      const started = startFake(data.videoIds);
      fake = started;
      const { port } = await started.ready;
      await database.db("recommenders").insert({
        key: KEY,
        kind: "external_http",
        label: "Slow external service",
        supports_feed: true,
        supports_watch: false,
        config: JSON.stringify({
          url: `http://127.0.0.1:${port}/recommend`,
          method: "POST",
          timeout_seconds: 5,
          headers: {},
          video_id_path: "video_ids",
        }),
      });
      await database.closeSeeder();
      const label = database.label;
      const server = await startServer(database.env);
      try {
        // 0. Warm-up: the built-in participants' credentials and the pool get cached.
        const builtinUsers = data.clients.recency ?? [];
        const builtinRequest = async (i: number) => {
          const u = builtinUsers[i % builtinUsers.length];
          if (!u) return false;
          const res = await get(`${server.url}/feed?session_id=${u.sessionId}&limit=20`, {
            cookie: u.cookie,
          });
          builtinBytes = Buffer.byteLength(res.text);
          return res.status === 200 && (JSON.parse(res.text) as { items: unknown[] }).items.length === 20;
        };
        await openLoop(BUILTIN_RATE, 3, builtinRequest);
        const slowRequest = async (u: BenchUser, expected: readonly string[]) => {
          const res = await get(`${server.url}/feed?session_id=${u.sessionId}&limit=20`, {
            cookie: u.cookie,
          });
          const body =
            res.status === 200
              ? (JSON.parse(res.text) as { items: { id: string }[]; has_more: boolean })
              : null;
          const ok = body?.has_more === true && body.items.map((v) => v.id).join() === expected.join();
          return ok ? null : `HTTP ${res.status} ${res.text.slice(0, 200)}`;
        };
        const r = await load(data, started, slowRequest, builtinRequest);
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        const failures = [
          ...metrics.matchAll(/feedlab_recommender_external_failures_total\{[^}]*kind="(\w+)"\} (\d+)/g),
        ]
          .map((m) => `${m[1]}=${m[2]}`)
          .join(", ");
        figures[`${label}: slow requests answered`] =
          `${r.correct + r.wrong} (${r.correct} correct, ${r.wrong} wrong${r.firstWrong ? `: ${r.firstWrong}` : ""})`;
        figures[`${label}: in flight at the service`] =
          `${r.fakeDuring.inFlight} when the built-in load started, at most ${r.fakeAfter.maxInFlight}`;
        figures[`${label}: slow request latency`] =
          `p50 ${percentile(r.latencies, 50).toFixed(0)} ms, p99 ${percentile(r.latencies, 99).toFixed(0)} ms`;
        figures[`${label}: external failures (metrics)`] = failures || "none";
        figures[`${label}: built-in recency /feed at ${BUILTIN_RATE}/s meanwhile`] = summary(r.builtin);
        figures[`${label}: built-in p99 (ms)`] = Number(percentile(r.builtin.latencies, 99).toFixed(1));
        figures[`${label}: server peak RSS (MB)`] = server.peakRssMb();
        figures[`${label}: machine load average (1 min) at the end`] = os.loadavg()[0]?.toFixed(2) ?? "";
      } finally {
        await server.stop();
      }
      // The floor: the same load against a plain node:http server that relays each slow request to
      // the same service with undici and answers built-in requests with a constant body.
      const floor = await startFloorServer({ RELAY_URL: `http://127.0.0.1:${port}/recommend` });
      try {
        // Built-in requests of the floor: a constant body of the built-in page's size.
        const builtinFloor = floorRequest(floor.url, builtinBytes);
        const slowFloor = async (u: BenchUser, expected: readonly string[]) => {
          const res = await get(`${floor.url}/relay?user_id=${u.userId}&limit=21`, {});
          const ids = res.status === 200 ? (JSON.parse(res.text) as { video_ids: string[] }).video_ids : [];
          return ids.slice(0, 20).join() === expected.join()
            ? null
            : `HTTP ${res.status} ${res.text.slice(0, 200)}`;
        };
        const f = await load(data, started, slowFloor, builtinFloor);
        figures[`${label}: floor: slow requests answered`] = `${f.correct + f.wrong} (${f.correct} correct)`;
        figures[`${label}: floor: slow request latency`] =
          `p50 ${percentile(f.latencies, 50).toFixed(0)} ms, p99 ${percentile(f.latencies, 99).toFixed(0)} ms`;
        figures[`${label}: floor: constant body at ${BUILTIN_RATE}/s meanwhile`] = summary(f.builtin);
      } finally {
        await floor.stop();
      }
    } finally {
      await fake?.close();
      await database.cleanup();
    }
  }
  return figures;
}
