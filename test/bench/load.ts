// The load generator of the serving benchmarks (feed, external): undici's keep-alive pool, open and
// closed loops, and what the generator itself costs (its CPU use, so a figure limited by the
// generator shows as such).
import { PerformanceObserver } from "node:perf_hooks";
import { Agent, request } from "undici";
import { cpuSecondsOf } from "./proc.ts";
import { percentile } from "./support.ts";

/** Keep-alive connections, lighter than `fetch` per request. */
const agent = new Agent({ connections: 4096, pipelining: 1, keepAliveTimeout: 60_000 });

/**
 * GET with headers; answers the status and the body as one Buffer (no string made: a generator that
 * checks bytes makes little garbage per request).
 */
export async function getBytes(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Buffer }> {
  const res = await request(url, {
    method: "GET",
    headers,
    dispatcher: agent,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk as Buffer);
  return { status: res.statusCode, body: Buffer.concat(chunks) };
}

/** GET with headers; answers the status and the body text. */
export async function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const res = await getBytes(url, headers);
  return { status: res.status, text: res.body.toString() };
}

/**
 * A request of the floor (floor-http.server.ts): the same generator, a constant body of `bytes`,
 * parsed like a page.
 */
export function floorRequest(url: string, bytes: number): () => Promise<boolean> {
  return async () => {
    const res = await get(`${url}/floor?bytes=${bytes}`, {});
    return res.status === 200 && Array.isArray((JSON.parse(res.text) as { items: unknown[] }).items);
  };
}

export interface LoadResult {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  /** Latencies in ms, sorted: from when each request was due (open loop) or sent (closed loop). */
  readonly latencies: number[];
  readonly seconds: number;
  /** CPU the load generator's process used meanwhile, as a share of one core (1 = a whole core). */
  readonly generatorCpu: number;
  /** CPU the measured server used meanwhile (share of one core), when its pid was given. */
  readonly serverCpu: number | null;
  /**
   * Open loop: the generator's longest garbage-collection pause meanwhile, in ms (wall time). The
   * requests due during a pause go out together when it ends, and queue at the server.
   */
  readonly generatorPauseMs?: number;
}

/** Measures the CPU of this process and of `serverPid` over `work`. */
async function withCpu<T extends Omit<LoadResult, "generatorCpu" | "serverCpu">>(
  serverPid: number | undefined,
  work: () => Promise<T>,
): Promise<T & Pick<LoadResult, "generatorCpu" | "serverCpu">> {
  const own = process.cpuUsage();
  const server = cpuSecondsOf(serverPid);
  const result = await work();
  const used = process.cpuUsage(own);
  const serverEnd = cpuSecondsOf(serverPid);
  return {
    ...result,
    generatorCpu: (used.user + used.system) / 1e6 / result.seconds,
    serverCpu: server === null || serverEnd === null ? null : (serverEnd - server) / result.seconds,
  };
}

/**
 * Open-loop load: `fire` is called at a fixed rate, whatever the answers, for `seconds`. Latency is
 * counted from when a request was due, so a stalled server (or client) shows in the figures
 * instead of slowing the rate down (no coordinated omission).
 */
export function openLoop(
  rate: number,
  seconds: number,
  fire: (i: number) => Promise<boolean>,
  serverPid?: number,
): Promise<LoadResult> {
  return withCpu(serverPid, async () => {
    const latencies: number[] = [];
    let ok = 0;
    let failed = 0;
    let generatorPauseMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) generatorPauseMs = Math.max(generatorPauseMs, e.duration);
    });
    gc.observe({ entryTypes: ["gc"] });
    const inflight = new Set<Promise<void>>();
    const start = performance.now();
    const total = Math.round(rate * seconds);
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // A request sent a little early (the timer's granularity) counts from when it was sent.
      const from = Math.min(due, performance.now());
      const p = fire(i).then(
        (good) => {
          latencies.push(performance.now() - from);
          if (good) ok++;
          else failed++;
        },
        () => {
          latencies.push(performance.now() - from);
          failed++;
        },
      );
      inflight.add(p);
      p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
    // Entries of the last collections arrive with the next turn.
    await new Promise((r) => setImmediate(r));
    gc.disconnect();
    latencies.sort((a, b) => a - b);
    return {
      sent: total,
      ok,
      failed,
      latencies,
      seconds: (performance.now() - start) / 1000,
      generatorPauseMs,
    };
  });
}

/**
 * Closed-loop load: `concurrency` clients each send their next request as soon as the previous one
 * is answered, for `seconds`: the rate the server sustains when saturated.
 */
export function closedLoop(
  concurrency: number,
  seconds: number,
  fire: (i: number) => Promise<boolean>,
  serverPid?: number,
): Promise<LoadResult> {
  return withCpu(serverPid, async () => {
    const latencies: number[] = [];
    let ok = 0;
    let failed = 0;
    let n = 0;
    const start = performance.now();
    const until = start + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const sent = performance.now();
          const good = await fire(n++).catch(() => false);
          latencies.push(performance.now() - sent);
          if (good) ok++;
          else failed++;
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    return { sent: n, ok, failed, latencies, seconds: (performance.now() - start) / 1000 };
  });
}

const share = (x: number | null) => (x === null ? "?" : `${Math.round(x * 100)}%`);

export const summary = (r: LoadResult) =>
  `p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms, max ${(r.latencies.at(-1) ?? 0).toFixed(0)} ms (${r.ok}/${r.sent} ok, ${(r.sent / r.seconds).toFixed(0)} req/s; CPU: server ${share(r.serverCpu)}, generator ${share(r.generatorCpu)} of a core${r.generatorPauseMs === undefined ? "" : `; generator's longest GC pause ${r.generatorPauseMs.toFixed(1)} ms`})`;
