// `node test/bench/run.ts ramp`: `feedlab simulate --ramp` against `feedlab start` on the embedded
// default (PGlite and the embedded log) in its own process, on a running study of 50 videos in two arms:
// the last level of participants it held (p99 of every endpoint within 250 ms, no 5xx, every event
// stored), each level's figures, and the server's CPU per level, from which participants per core of
// the server follow. Floor, measured right after on the same machine: a plain node:http server
// (floor-http.server.ts) at the request rate of the level the ramp stopped at, open loop, its p99 the
// machine's own tail at that rate. BENCH_SECONDS (per level), BENCH_FROM, BENCH_MAX and
// BENCH_FLOOR_SECONDS override the plan.
import os from "node:os";
import { Client } from "../harness/app.ts";
import { createStudy } from "../harness/fixtures.ts";
import { floorRequest, openLoop } from "./load.ts";
import { cpuSecondsOf } from "./proc.ts";
import { percentile, spawnSimulate, startFloorServer, startServer } from "./support.ts";

export const name = "ramp";
export const description =
  "feedlab simulate --ramp against the embedded default in its own process: participants raised until a level misses p99 <= 250 ms, no 5xx, no event missing; the last level held, the server's CPU per level; floor: a plain node:http server at the stopping level's request rate";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 40);
const FROM = Number(process.env.BENCH_FROM ?? 25);
const MAX = Number(process.env.BENCH_MAX ?? 20_000);
const FLOOR_SECONDS = Number(process.env.BENCH_FLOOR_SECONDS ?? 20);
const ADMIN = { username: "admin", password: "bench-ramp-password" } as const;

interface Level {
  readonly participants: number;
  readonly held: boolean;
  readonly p99_ms: number | null;
  readonly slowest: string | null;
  readonly requests_per_s: number;
  readonly missed: string[];
}

/** Runs the ramp, reading the server's CPU seconds as each level starts; its JSON line and those readings. */
function ramp(url: string, experiment: string, serverPid: number | undefined) {
  return new Promise<{
    status: number | null;
    held: number | null;
    levels: Level[];
    marks: [number, number][];
  }>((resolve, reject) => {
    const child = spawnSimulate(
      ["--url", url, "--experiment", experiment, "--ramp", "--duration", String(SECONDS)].concat([
        "--from",
        String(FROM),
        "--max",
        String(MAX),
      ]),
      ADMIN,
    );
    // [time (s), server CPU seconds] when each level starts, and at the end.
    const marks: [number, number][] = [];
    const mark = () => marks.push([performance.now() / 1000, cpuSecondsOf(serverPid) ?? 0]);
    let stdout = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d: Buffer) => {
      const text = d.toString();
      if (/^Level \d+: /m.test(text)) mark();
      process.stderr.write(text);
    });
    child.on("error", reject);
    child.on("close", (status) => {
      mark();
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (!last.startsWith("{"))
        reject(new Error(`the ramp printed no summary (exit ${status}):\n${stdout}`));
      else resolve({ status, ...(JSON.parse(last) as { held: number | null; levels: Level[] }), marks });
    });
  });
}

export async function run(): Promise<Record<string, number | string>> {
  const server = await startServer({ FEEDLAB_ADMIN_PASSWORD: ADMIN.password });
  const figures: Record<string, number | string> = {};
  try {
    const admin = new Client(server.url);
    await admin.post("/api/v1/auth/login", ADMIN);
    const study = await createStudy(admin, { videoCount: 50, status: "running", weights: [1, 1] });
    const { status, held, levels, marks } = await ramp(server.url, study.experiment.id, server.child.pid);
    figures["seconds per level, first level"] = `${SECONDS}, ${FROM}`;
    figures["exit code"] = String(status);
    figures["last level held (participants)"] = held ?? "none";
    levels.forEach((l, i) => {
      const [t0, c0] = marks[i] ?? [0, 0];
      const [t1, c1] = marks[i + 1] ?? [0, 0];
      const cores = (c1 - c0) / Math.max(0.001, t1 - t0);
      figures[`level ${i + 1}: ${l.participants} participants`] =
        `${l.held ? "held" : "missed"}; ${l.requests_per_s} req/s; slowest p99 ${l.p99_ms?.toFixed(0) ?? "-"} ms (${l.slowest}); server ${cores.toFixed(2)} cores (${((100 * cores) / l.participants).toFixed(2)} cores per 100 participants)${l.held ? "" : `; ${l.missed.join("; ")}`}`;
    });
    figures["server peak RSS (MB)"] = server.peakRssMb();
    const stopped = levels.find((l) => !l.held) ?? levels.at(-1);
    if (stopped) {
      const floorServer = await startFloorServer();
      try {
        const f = await openLoop(
          stopped.requests_per_s,
          FLOOR_SECONDS,
          floorRequest(floorServer.url, 1500),
          floorServer.child.pid,
        );
        const p99 = percentile(f.latencies, 99);
        figures[
          `floor: plain node:http at ${stopped.requests_per_s} req/s (level of ${stopped.participants}), ${FLOOR_SECONDS} s`
        ] =
          `p99 ${p99.toFixed(1)} ms (${f.ok}/${f.sent} ok); the level's slowest p99 is ${((stopped.p99_ms ?? 0) / p99).toFixed(1)}x`;
      } finally {
        await floorServer.stop();
      }
    }
    figures["machine load average (1 min) at the end"] = os.loadavg()[0]?.toFixed(2) ?? "";
  } finally {
    await server.stop();
  }
  return figures;
}
