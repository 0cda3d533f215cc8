import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { Client } from "./app.ts";
import { freePort } from "./ports.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/feedlab.mjs");
const PROCESS_ADMIN = { username: "admin", password: "process-test-password" } as const;

/** One `feedlab start --role ...` process of a test deployment. */
export interface FeedlabProcess {
  readonly role: string;
  readonly url: string | null;
  readonly child: ChildProcess;
  output(): string;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<void>;
  /** SIGTERM, waiting for the exit. */
  stop(): Promise<number | null>;
}

/**
 * BENCH_CPU_PROF=DIR: a started process writes a V8 CPU profile into DIR when it exits (open it in
 * Chrome's DevTools, Performance tab). NODE_OPTIONS cannot carry --cpu-prof; the launcher keeps these
 * flags when it re-executes itself with the server's V8 settings.
 */
export function profileFlags(env = process.env): string[] {
  const dir = env.BENCH_CPU_PROF;
  return dir ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(dir)] : [];
}

/** Starts a role as its own process and waits until it is up (the API's banner, or the role's line). */
export async function startRole(
  role: "api" | "projector" | "trainer" | "all",
  env: Record<string, string>,
  port?: number,
): Promise<FeedlabProcess> {
  const headless = role === "projector" || role === "trainer";
  const p = port ?? (headless ? 0 : await freePort());
  const child = spawn(process.execPath, [...profileFlags(), BIN, "start", "--role", role], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(p),
      FEEDLAB_DEMO: "0",
      FEEDLAB_ADMIN_PASSWORD: PROCESS_ADMIN.password,
      FEEDLAB_LOG_LEVEL: "warn",
      FEEDLAB_LOG_FORMAT: "json",
      FEEDLAB_JOIN_RATE_LIMIT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = headless ? `${role} running` : "API reference:";
  const deadline = Date.now() + 90_000;
  while (!out.includes(ready)) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`feedlab --role ${role} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    role,
    url: headless ? null : `http://127.0.0.1:${p}`,
    child,
    output: () => out,
    kill9: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

export async function adminClient(url: string): Promise<Client> {
  const c = new Client(url);
  const r = await c.post("/api/v1/auth/login", PROCESS_ADMIN);
  if (r.status !== 200) throw new Error(`admin login failed: ${r.status}`);
  return c;
}

/** Runs a one-shot CLI command of feedlab (migrate, replay, ...) with the deployment's environment. */
export function runFeedlab(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, FEEDLAB_LOG_FORMAT: "json", FEEDLAB_LOG_LEVEL: "warn", ...env },
    encoding: "utf8",
    timeout: 300_000,
  });
}

/** Runs a one-shot CLI command without blocking this process (say, a backup taken while this process loads the service). */
export function runFeedlabAsync(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, FEEDLAB_LOG_FORMAT: "json", FEEDLAB_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
