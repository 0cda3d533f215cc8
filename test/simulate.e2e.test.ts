import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN, Client, createTestStorage, startTestApp, type TestApp } from "./harness/app.ts";
import { createStudy } from "./harness/fixtures.ts";
import { type FeedlabProcess, startRole } from "./harness/processes.ts";

const BIN = path.resolve(import.meta.dirname, "../bin/feedlab.mjs");

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Seconds from the spawn to the exit. */
  readonly seconds: number;
}

/**
 * `feedlab simulate` as its own process with the test admin's credentials; `onStderr` sees its
 * messages as they come (the progress line), to act in the middle of a run.
 */
function simulate(args: string[], onStderr: (all: string) => void = () => {}): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "simulate", ...args], {
      env: {
        ...process.env,
        // The CLI needs no database: a developer's settings must not leak in.
        DATABASE_URL: "",
        KAFKA_BROKERS: "",
        FEEDLAB_ADMIN_USERNAME: ADMIN.username,
        FEEDLAB_ADMIN_PASSWORD: ADMIN.password,
        FEEDLAB_LOG_FORMAT: "json",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      onStderr(stderr);
    });
    child.on("error", reject);
    child.on("close", (status) =>
      resolve({ status, stdout, stderr, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

/** The JSON object on the last line of stdout. */
function summaryOf(run: Run): Record<string, unknown> {
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON last line:\n${run.stdout}\n${run.stderr}`);
  }
}

const PINNED = [
  "participants",
  "requests",
  "errors_5xx",
  "errors_429",
  "events_acknowledged",
  "events_stored",
  "events_missing",
  "latency_ms",
  "lag_ms_p99",
];

/** A running study of two arms and 12 videos; answers its id. */
async function runningStudy(admin: Client): Promise<string> {
  return (await createStudy(admin, { videoCount: 12, status: "running" })).experiment.id;
}

describe.each(["pglite", "kafka"] as const)("feedlab simulate against a deployment (%s)", (backend) => {
  let app: TestApp | null = null;
  afterAll(async () => {
    await app?.stop();
  });

  it("drives 20 participants for 10 s, finds every acknowledged event in the export and exits 0", async () => {
    app = await startTestApp(backend);
    const experiment = await runningStudy(await app.admin());
    const run = await simulate([
      "--url",
      app.url,
      "--experiment",
      experiment,
      "--participants",
      "20",
      "--duration",
      "10",
    ]);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const summary = summaryOf(run);
    for (const field of PINNED) expect(summary).toHaveProperty(field);
    expect(summary).toMatchObject({ participants: 20, errors_5xx: 0, errors_429: 0, events_missing: 0 });
    expect(summary.events_acknowledged).toBeGreaterThan(0);
    expect(summary.events_stored).toBe(summary.events_acknowledged);
    const latency = summary.latency_ms as Record<string, { p50: number; p95: number; p99: number }>;
    for (const endpoint of ["POST /api/v1/participants/join", "POST /api/v1/events", "GET /feed"]) {
      expect(latency[endpoint]?.p99, endpoint).toBeGreaterThan(0);
      expect(latency[endpoint]?.p50).toBeLessThanOrEqual(latency[endpoint]?.p99 ?? 0);
    }
    expect(summary.lag_ms_p99).toBeGreaterThan(0);
    // The human-readable report comes before the JSON line; progress goes to stderr.
    expect(run.stdout).toContain("Result: passed");
    expect(run.stderr).toMatch(/joined \|/);
  });
});

describe("feedlab simulate when the deployment goes away or limits joins", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("reports the failures and exits non-zero in bounded time when the server is killed mid-run", async () => {
    const storage = await createTestStorage("pglite");
    cleanups.push(() => storage.cleanup());
    const server: FeedlabProcess = await startRole("all", {
      ...storage.env,
      FEEDLAB_ADMIN_PASSWORD: ADMIN.password,
    });
    cleanups.push(() => server.stop());
    const admin = new Client(server.url as string);
    expect((await admin.post("/api/v1/auth/login", ADMIN)).status).toBe(200);
    const experiment = await runningStudy(admin);

    let killed = false;
    const duration = 12;
    const run = await simulate(
      [
        "--url",
        server.url as string,
        "--experiment",
        experiment,
        "--participants",
        "10",
        "--duration",
        String(duration),
      ],
      (stderr) => {
        // Killed once the participants are in and sending (a progress line names them).
        if (!killed && /10\/10 joined/.test(stderr)) {
          killed = true;
          void server.kill9();
        }
      },
    );
    expect(killed, run.stderr).toBe(true);
    expect(run.status).toBe(1);
    // The rest of the run, then three failed reads of the export: well within the duration plus 30 s.
    expect(run.seconds).toBeLessThan(duration + 30);
    const summary = summaryOf(run);
    expect(summary.errors_network).toBeGreaterThan(0);
    expect(run.stdout).toContain("Result: FAILED");
  });

  it("stops at once with exit 3 and names FEEDLAB_JOIN_RATE_LIMIT when joins are limited", async () => {
    const app = await startTestApp("pglite", { env: { FEEDLAB_JOIN_RATE_LIMIT: "5" } });
    cleanups.push(() => app.stop());
    const experiment = await runningStudy(await app.admin());
    const run = await simulate([
      "--url",
      app.url,
      "--experiment",
      experiment,
      "--participants",
      "20",
      "--duration",
      "60",
    ]);
    expect(run.status, run.stderr).toBe(3);
    // The sixth join is refused about a second and a half in: nowhere near the 60 s asked for.
    expect(run.seconds).toBeLessThan(30);
    expect(run.stderr).toContain("FEEDLAB_JOIN_RATE_LIMIT=20 or more (or 0: no limit)");
    expect(run.stdout).not.toContain("{");
  });
});

describe("feedlab simulate --ramp", () => {
  let app: TestApp;
  let admin: Client;
  afterAll(async () => {
    await app?.stop();
  });

  /** A ramp of short levels against the study; its run and JSON line. */
  async function ramp(experiment: string, ...more: string[]) {
    const run = await simulate([
      "--url",
      app.url,
      "--experiment",
      experiment,
      "--ramp",
      "--duration",
      "4",
      ...more,
    ]);
    return {
      run,
      result: summaryOf(run) as {
        held: number | null;
        levels: { participants: number; held: boolean; missed: string[] }[];
      },
    };
  }

  it("raises the participants level by level while the deployment holds its targets, and prints the last level held", async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
    const { run, result } = await ramp(await runningStudy(admin), "--from", "3", "--max", "6");
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(result.levels.map((l) => [l.participants, l.held])).toEqual([
      [3, true],
      [6, true],
    ]);
    expect(result.held).toBe(6);
    expect(run.stdout).toContain("Held 6 participants (p99 <= 250 ms, no 5xx, every event stored).");
  });

  it("holds no level and exits 1 when every feed answer takes longer than the p99 target", async () => {
    const experiment = await runningStudy(admin);
    // Latency parity's floor (api.md "Data quality and validity"): every feed answer takes 300 ms or more.
    expect(
      (await admin.patch(`/api/v1/admin/experiments/${experiment}`, { min_response_ms: 300 })).status,
    ).toBe(200);
    const { run, result } = await ramp(experiment, "--from", "2");
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(result.held).toBeNull();
    expect(result.levels).toHaveLength(1);
    expect(result.levels[0]?.missed[0]).toMatch(/^p99 of GET \/feed.* over 250 ms$/);
    expect(run.stdout).toContain("Held no level: even 2 participants missed the targets.");
  });
});
