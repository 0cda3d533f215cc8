import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { Client } from "../harness/app.ts";
import { freePort } from "../harness/ports.ts";
import { profileFlags } from "../harness/processes.ts";
import { memoryOf } from "./proc.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BENCH_ADMIN = { username: "admin", password: "bench-password-1" } as const;

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  admin(): Promise<Client>;
  /** Peak resident memory of the server so far, in MB (from /proc). */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** Starts `feedlab start` as its own process on a fresh embedded database (or DATABASE_URL from env). */
export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-bench-"));
  const port = await freePort();
  const child = spawn(process.execPath, [...profileFlags(), path.join(ROOT, "bin/feedlab.mjs"), "start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      FEEDLAB_DATA_DIR: dir,
      FEEDLAB_DEMO: "0",
      FEEDLAB_ADMIN_PASSWORD: BENCH_ADMIN.password,
      FEEDLAB_LOG_LEVEL: "warn",
      FEEDLAB_LOG_FORMAT: "json",
      // Benchmarks join thousands of participants from one address.
      FEEDLAB_JOIN_RATE_LIMIT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes("API reference:")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server failed to start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    admin: async () => {
      const c = new Client(url);
      await c.post("/api/v1/auth/login", BENCH_ADMIN);
      return c;
    },
    peakRssMb: () => Math.round(memoryOf(child.pid).hwm / 2 ** 20),
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The floor of the serving benchmarks (floor-http.server.ts) in its own process; `env` adds to its environment. */
export async function startFloorServer(env: Record<string, string> = {}): Promise<{
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "floor-http.server.ts")], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`floor server exited with ${code}`)));
    child.stdout?.once("data", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

/**
 * Runs a benchmark's floor script (test/bench/*.floor.ts) as a process of its own with Node `flags`
 * and `env` added; answers the JSON line it prints last.
 */
export function runFloorProcess<T>(script: string, flags: readonly string[], env: Record<string, string>): T {
  const r = spawnSync(process.execPath, [...flags, path.join(import.meta.dirname, script)], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 2 ** 20,
  });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`the floor ${script} failed:\n${r.stderr}`);
  return JSON.parse(line) as T;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The median of `times` runs of `work` in milliseconds, after one run to warm up. */
export async function timed(times: number, work: () => Promise<unknown>): Promise<number> {
  await work();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await work();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** A database of its own, `name`, on the PostgreSQL cluster at `clusterUrl`: its URL. */
export async function createBenchDatabase(clusterUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * `feedlab simulate ARGS` as its own process, signing in as `admin`, with no database or broker of the
 * caller's (the command needs none); its output is piped unless `stderr` is "inherit".
 */
export function spawnSimulate(
  args: readonly string[],
  admin: { readonly username: string; readonly password: string },
  stderr: "pipe" | "inherit" = "pipe",
): ChildProcess {
  return spawn(process.execPath, [path.join(ROOT, "bin/feedlab.mjs"), "simulate", ...args], {
    env: {
      ...process.env,
      DATABASE_URL: "",
      KAFKA_BROKERS: "",
      FEEDLAB_ADMIN_USERNAME: admin.username,
      FEEDLAB_ADMIN_PASSWORD: admin.password,
    },
    stdio: ["ignore", "pipe", stderr],
  });
}
