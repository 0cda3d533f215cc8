// `node test/bench/run.ts simulate`: `feedlab simulate` (issue 36, load mode) with 200 participants for
// 60 s against `feedlab start` on the embedded default (PGlite and the embedded log) in its own process,
// on a running study of 50 videos in two arms. Prints what the command prints: requests/s, p99 per
// endpoint, the projector's lag, events acknowledged and stored. Floor, measured right after on the same
// machine: the same request mix (each endpoint's share of the run's requests, at the run's rate, open
// loop) against a plain node:http server answering a constant body (floor-http.server.ts), GETs with a
// body the size of the real answer and POSTs with a body the size of the run's mean batch.
// BENCH_PARTICIPANTS and BENCH_SECONDS override the size (a quick check before the real run).
import { randomUUID } from "node:crypto";
import os from "node:os";
import { Agent, request } from "undici";
import { Client } from "../harness/app.ts";
import { createStudy } from "../harness/fixtures.ts";
import { openLoop } from "./load.ts";
import { cpuSecondsOf, machineCpuSeconds } from "./proc.ts";
import { percentile, spawnSimulate, startFloorServer, startServer } from "./support.ts";

export const name = "simulate";
export const description =
  "feedlab simulate: 200 HTTP participants at human pace for 60 s against the embedded default in its own process (one batch each every 5 s plus their pages); requests/s, p99 per endpoint, projector lag p99, events acknowledged and stored; floor: the same request mix at the same rate against a plain node:http server";

const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const FLOOR_SECONDS = Math.min(30, SECONDS);
const ADMIN = { username: "admin", password: "bench-simulate-password" } as const;

interface Summary {
  readonly requests: number;
  readonly requests_per_s: number;
  readonly errors_5xx: number;
  readonly errors_429: number;
  readonly errors_network: number;
  readonly events_acknowledged: number;
  readonly events_stored: number;
  readonly events_missing: number;
  readonly latency_ms: Record<string, { p50: number; p95: number; p99: number }>;
  readonly requests_by_endpoint: Record<string, number>;
  readonly lag_ms_p99: number | null;
}

/** Runs the command; answers its exit code, its JSON line and its stdout. */
function simulate(
  url: string,
  experiment: string,
): Promise<{ status: number | null; summary: Summary; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnSimulate(
      ["--url", url, "--experiment", experiment, "--participants", String(PARTICIPANTS)].concat([
        "--duration",
        String(SECONDS),
      ]),
      ADMIN,
      "inherit",
    );
    let stdout = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (!last.startsWith("{"))
        reject(new Error(`feedlab simulate printed no summary (exit ${status}):\n${stdout}`));
      else resolve({ status, summary: JSON.parse(last) as Summary, stdout });
    });
  });
}

/** Bytes of a real answer of each page request, read by one participant of the bench's own. */
async function answerSizes(
  url: string,
  experiment: string,
  videoId: string,
): Promise<Record<string, number>> {
  const c = new Client(url);
  await c.post("/api/v1/participants/join", { experiment_id: experiment, login_id: "bench-sizes" });
  const sessionId = randomUUID();
  await c.post("/sessions", { session_id: sessionId });
  const size = async (p: string) => Buffer.byteLength((await c.get(p)).text);
  return {
    "GET /feed": await size(`/feed?session_id=${sessionId}&limit=20`),
    "GET /feed?after": await size(`/feed?session_id=${sessionId}&limit=20`),
    "GET /feed/{id}/related": await size(`/feed/${videoId}/related?session_id=${sessionId}&limit=20`),
    "GET /api/v1/videos/{id}": await size(`/api/v1/videos/${videoId}`),
    "GET /api/v1/me": await size("/api/v1/me"),
    "GET /api/v1/surveys/pending": await size(`/api/v1/surveys/pending?session_id=${sessionId}`),
  };
}

/**
 * The floor: the run's request mix at its rate against the plain server, each endpoint in its share
 * (a fixed interleaving), GETs answered with the real answer's size, POSTs carrying `postBytes`.
 */
async function floor(
  summary: Summary,
  sizes: Record<string, number>,
  postBytes: number,
  floorUrl: string,
  pid?: number,
) {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const endpoints = Object.entries(summary.requests_by_endpoint);
  const total = endpoints.reduce((s, [, n]) => s + n, 0);
  // Endpoint of the i-th request: the one furthest behind its share (a smooth weighted round-robin).
  const sent = new Map(endpoints.map(([e]) => [e, 0]));
  const pick = (i: number) => {
    let best = endpoints[0]?.[0] ?? "GET /feed";
    let gap = Number.NEGATIVE_INFINITY;
    for (const [e, n] of endpoints) {
      const g = ((i + 1) * n) / total - (sent.get(e) ?? 0);
      if (g > gap) [best, gap] = [e, g];
    }
    sent.set(best, (sent.get(best) ?? 0) + 1);
    return best;
  };
  const latencies = new Map<string, number[]>();
  const body = Buffer.from(JSON.stringify({ pad: "x".repeat(Math.max(0, postBytes - 10)) }));
  const fire = async (i: number) => {
    const endpoint = pick(i);
    const post = endpoint.startsWith("POST");
    const started = performance.now();
    const res = await request(`${floorUrl}/floor?bytes=${post ? 120 : (sizes[endpoint] ?? 600)}`, {
      method: post ? "POST" : "GET",
      dispatcher: agent,
      headers: post ? { "content-type": "application/json" } : {},
      body: post ? body : undefined,
    });
    await res.body.text();
    const list = latencies.get(endpoint) ?? [];
    list.push(performance.now() - started);
    latencies.set(endpoint, list);
    return res.statusCode === 200;
  };
  const result = await openLoop(summary.requests_per_s, FLOOR_SECONDS, fire, pid);
  await agent.close();
  const p99 = new Map(
    [...latencies].map(([e, l]) => [
      e,
      percentile(
        l.sort((a, b) => a - b),
        99,
      ),
    ]),
  );
  return { result, p99 };
}

export async function run(): Promise<Record<string, number | string>> {
  const server = await startServer({ FEEDLAB_ADMIN_PASSWORD: ADMIN.password });
  const figures: Record<string, number | string> = {};
  try {
    const admin = new Client(server.url);
    await admin.post("/api/v1/auth/login", ADMIN);
    const study = await createStudy(admin, { videoCount: 50, status: "running", weights: [1, 1] });
    const sizes = await answerSizes(server.url, study.experiment.id, study.videos[0]?.id ?? "");
    const cpuBefore = cpuSecondsOf(server.child.pid) ?? 0;
    const machineBefore = machineCpuSeconds();
    const started = performance.now();
    const { status, summary, stdout } = await simulate(server.url, study.experiment.id);
    const wall = (performance.now() - started) / 1000;
    const machineAfter = machineCpuSeconds();
    const busy = machineAfter.busy - machineBefore.busy;
    console.error(stdout);
    figures["participants, seconds"] = `${PARTICIPANTS}, ${SECONDS}`;
    figures["exit code"] = String(status);
    figures["requests/s"] = summary.requests_per_s;
    figures["errors (5xx / 429 / no answer)"] =
      `${summary.errors_5xx} / ${summary.errors_429} / ${summary.errors_network}`;
    figures["events acknowledged / stored / missing"] =
      `${summary.events_acknowledged} / ${summary.events_stored} / ${summary.events_missing}`;
    figures["projector lag p99 (ms)"] = summary.lag_ms_p99 ?? "none";
    figures["server CPU (share of one core, whole command)"] =
      `${Math.round((100 * ((cpuSecondsOf(server.child.pid) ?? 0) - cpuBefore)) / wall)}%`;
    figures["machine busy (whole command)"] =
      `${Math.round((100 * busy) / (busy + machineAfter.idle - machineBefore.idle))}%`;
    figures["server peak RSS (MB)"] = server.peakRssMb();

    const batches = Math.max(1, summary.requests_by_endpoint["POST /api/v1/events"] ?? 1);
    // A logged event is about 400 bytes of JSON on the wire (payloads vary by type).
    const postBytes = Math.round((summary.events_acknowledged / batches) * 400);
    const floorServer = await startFloorServer();
    try {
      const f = await floor(summary, sizes, postBytes, floorServer.url, floorServer.child.pid);
      figures[`floor: the same mix at ${summary.requests_per_s} req/s for ${FLOOR_SECONDS} s`] =
        `p99 ${percentile(f.result.latencies, 99).toFixed(1)} ms over all (${f.result.ok}/${f.result.sent} ok)`;
      for (const [endpoint, p] of Object.entries(summary.latency_ms)) {
        const fp = f.p99.get(endpoint);
        figures[`p50 / p99 ${endpoint} (ms)`] =
          `${p.p50} / ${p.p99}; floor p99 ${fp === undefined ? "-" : fp.toFixed(1)}${fp ? ` (${(p.p99 / fp).toFixed(1)}x)` : ""}`;
      }
    } finally {
      await floorServer.stop();
    }
    figures["machine load average (1 min) at the end"] = os.loadavg()[0]?.toFixed(2) ?? "";
  } finally {
    await server.stop();
  }
  return figures;
}
