import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./harness/ports.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "feedlab.mjs");

interface Running {
  readonly child: ChildProcess;
  readonly output: () => string;
  stop(): Promise<number | null>;
}

/** Runs `feedlab start` as its own process and waits for the banner (or the process to die). */
async function startProcess(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [BIN, "start"], {
    cwd: ROOT,
    env: { ...process.env, FEEDLAB_LOG_FORMAT: "json", FEEDLAB_LOG_LEVEL: "warn", ...env },
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
  const deadline = Date.now() + 60_000;
  while (!out.includes("API reference:")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`feedlab start failed:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

function runCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    // The embedded defaults: a developer's DATABASE_URL or KAFKA_BROKERS must not leak in.
    env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", FEEDLAB_LOG_FORMAT: "json", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the feedlab process on the embedded defaults", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), "feedlab-cli-test-"));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("seeds the demo once, prints the generated password once, and keeps everything across restarts", async () => {
    const port = await freePort();
    const env = { FEEDLAB_DATA_DIR: dataDir, PORT: String(port) };
    const first = await startProcess(env);
    const banner = first.output();
    const password = banner.match(/Admin login:\s+admin \/ (\S+)/)?.[1];
    expect(password, banner).toBeDefined();
    const joinLink = banner.match(/Join link:\s+(\S+)/)?.[1];
    expect(joinLink).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/join/[0-9a-f-]{36}\\?login_id=`));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const countAll = async () => {
      const h = { cookie };
      const exps = (await (
        await fetch(`http://127.0.0.1:${port}/api/v1/admin/experiments`, { headers: h })
      ).json()) as { id: string; status: string }[];
      const videos = (await (
        await fetch(`http://127.0.0.1:${port}/api/v1/admin/videos`, { headers: h })
      ).json()) as { type: string; resolved_url: string }[];
      return { exps, videos };
    };
    const before = await countAll();
    expect(before.exps).toHaveLength(1);
    expect(before.exps[0]?.status).toBe("running");
    expect(before.videos.length).toBeGreaterThanOrEqual(12);
    const media = await fetch(`http://127.0.0.1:${port}${before.videos[0]?.resolved_url}`, {
      headers: { range: "bytes=0-99" },
    });
    expect(media.status).toBe(206);
    expect((await media.arrayBuffer()).byteLength).toBe(100);
    expect(await first.stop()).toBe(0);

    const second = await startProcess(env);
    expect(second.output()).not.toContain(password);
    const after = await countAll();
    expect(after.exps.map((e) => e.id)).toEqual(before.exps.map((e) => e.id));
    expect(after.videos).toHaveLength(before.videos.length);
    // Events sent through the running server survive a replay of the read models from the log.
    const participant = await fetch(`http://127.0.0.1:${port}/api/v1/participants/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ experiment_id: after.exps[0]?.id, login_id: "cli-replay" }),
    });
    const pCookie = participant.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const sessionId = crypto.randomUUID();
    const headers = { "content-type": "application/json", cookie: pCookie };
    await fetch(`http://127.0.0.1:${port}/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ session_id: sessionId }),
    });
    const sent = await fetch(`http://127.0.0.1:${port}/api/v1/events`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        session_id: sessionId,
        events: [
          {
            event_id: crypto.randomUUID(),
            event_type: "PAGE_LOAD",
            timestamp: new Date().toISOString(),
            payload: { url: "/", pageType: "feed" },
          },
          {
            event_id: crypto.randomUUID(),
            event_type: "WINDOW_BLUR",
            timestamp: new Date().toISOString(),
            payload: {},
          },
        ],
      }),
    });
    expect(sent.status).toBe(202);
    // While the server runs, the embedded database is locked: a second process is refused clearly.
    const locked = runCli(["replay"], env);
    expect(locked.status).toBe(1);
    expect(locked.stderr).toMatch(/in use by process \d+/);
    expect(await second.stop()).toBe(0);

    const replayed = runCli(["replay"], env);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(
      /Replayed 2 records into events, watched, view_counts, interactions, session_activity/,
    );
    const unknown = runCli(["replay", "--projection", "nope"], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown projection");
  });

  it("exits with status 2 listing every configuration problem", () => {
    const r = runCli(["start"], { PORT: "nope", DATABASE_URL: "mysql://x", FEEDLAB_DATA_DIR: dataDir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("PORT");
    expect(r.stderr).toContain("DATABASE_URL");
  });

  it("imports videos from a file with a summary of accepted and rejected rows", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-import-test-"));
    const file = path.join(dir, "videos.csv");
    writeFileSync(
      file,
      "external_id,url,title\ncli-1,https://cdn.example.org/1.mp4,One\ncli-2,not-a-url,Two\ncli-3,https://cdn.example.org/3.mp4,Three\n",
    );
    const env = { FEEDLAB_DATA_DIR: dir, FEEDLAB_DEMO: "0" };
    expect(runCli(["migrate"], env).stdout).toContain("Applied");
    const r = runCli(["videos", "import", file], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("2 imported, 0 updated, 1 rejected (of 3 rows).");
    expect(r.stdout).toMatch(/row 2 \(cli-2\): validation_failed: url/);
    const again = runCli(["videos", "import", file], env);
    expect(again.stdout).toContain("0 imported, 0 updated, 3 rejected");
    expect(again.status).toBe(1);
    // --update changes the videos whose external id exists.
    const update = runCli(["videos", "import", file, "--update"], env);
    expect(update.stdout).toContain("0 imported, 2 updated, 1 rejected");
    expect(update.status).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates an owner with a generated password shown once, a researcher when told, and refuses a duplicate or another role", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-admin-test-"));
    const env = { FEEDLAB_DATA_DIR: dir, FEEDLAB_DEMO: "0" };
    const r = runCli(["admin", "create", "--username", "second"], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Created admin "second" (owner).');
    expect(r.stdout).toMatch(/Password: \S{20}/);
    const dup = runCli(["admin", "create", "--username", "second"], env);
    expect(dup.status).toBe(2);
    expect(dup.stderr).toContain("already exists");
    const researcher = runCli(["admin", "create", "--username", "third", "--role", "researcher"], env);
    expect(researcher.stdout, researcher.stderr).toContain('Created admin "third" (researcher).');
    const other = runCli(["admin", "create", "--username", "fourth", "--role", "admin"], env);
    expect([other.status, other.stderr]).toEqual([
      2,
      expect.stringContaining("--role must be one of owner, researcher"),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });
});
