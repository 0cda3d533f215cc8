import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort } from "./ports.ts";

/** A throwaway PostgreSQL cluster owned by the test run. */
export interface PostgresServer {
  /** Superuser URL (`postgres` role, trust auth) of the cluster's `postgres` database. */
  readonly url: string;
  /** Fast shutdown, then removes the cluster's directory. Idempotent. */
  stop(): Promise<void>;
}

/** Operating-system account that runs the cluster: initdb and postgres refuse to run as root. */
interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * Finds the directory holding `initdb` and `postgres`: `pg_config --bindir` when it really holds
 * them (Debian's libpq-dev ships a pg_config that may name a server version that is not installed),
 * else the newest `/usr/lib/postgresql/<major>/bin`, else the directory of an `initdb` on PATH.
 */
function findPostgresBinDir(): string {
  const hasServer = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));

  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: "pipe" }).trim();
    if (hasServer(dir)) return dir;
  } catch {
    // No pg_config on this machine; try the other places.
  }

  const debianRoot = "/usr/lib/postgresql";
  if (existsSync(debianRoot)) {
    const newest = readdirSync(debianRoot)
      .filter((entry) => /^\d+(\.\d+)?$/.test(entry))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
      .map((version) => join(debianRoot, version, "bin"))
      .find(hasServer);
    if (newest !== undefined) return newest;
  }

  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && hasServer(dir)) return dir;
  }

  throw new Error(
    "No PostgreSQL server binaries (initdb, postgres) found. Install them (Debian: apt-get install postgresql) " +
      "or set DATABASE_URL to an admin URL of a server the tests may create databases on.",
  );
}

/** Resolves the `postgres` account when we are root, since initdb and postgres refuse to run as root. */
function runAsForCurrentUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new Error(
      "Running as root, but there is no `postgres` user to run initdb and postgres as " +
        "(Debian's postgresql package creates it).",
    );
  }
}

/** Runs a program to completion as `runAs` (Node calls setgid, setgroups([]) and setuid in the child). */
function run(file: string, args: readonly string[], cwd: string, runAs: RunAs | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: serverEnv(), stdio: ["ignore", "pipe", "pipe"], ...runAs });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

function serverEnv(): NodeJS.ProcessEnv {
  // PG* variables from the caller's shell (PGDATA, PGPORT...) must not redirect the throwaway cluster.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PG")));
  return { ...env, LC_ALL: "C" };
}

/** Polls until the server accepts a query, failing early if the postmaster has exited. */
async function waitUntilReady(url: string, child: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `postgres exited during start-up (${child.signalCode ?? child.exitCode}):\n${tail(logPath)}`,
      );
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query("select 1");
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await client.end().catch(() => {});
    }
    await sleep(100);
  }
  throw new Error(
    `postgres did not accept connections within ${READY_TIMEOUT_MS} ms (${String(lastError)}):\n${tail(logPath)}`,
  );
}

function tail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-30).join("\n");
  } catch {
    return "(no server log)";
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts a fresh cluster in a temporary directory: `initdb` with trust auth, UTF8 and the C locale,
 * then `postgres` on a free port of 127.0.0.1 with its socket in the same directory and durability
 * switched off (fsync, synchronous_commit, full_page_writes), since the data dies with the run.
 * As root, both run as the `postgres` account, which owns the directory.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const binDir = findPostgresBinDir();
  const runAs = runAsForCurrentUser();
  const dir = mkdtempSync(join(tmpdir(), "feedlab-pg-"));
  if (runAs !== undefined) chownSync(dir, runAs.uid, runAs.gid);
  const dataDir = join(dir, "data");
  const logPath = join(dir, "postgres.log");

  let child: ChildProcess | undefined;
  let stopped: Promise<void> | undefined;

  // Last resort when the test runner exits without calling stop(): a postmaster outlives its parent.
  // Exit handlers must be synchronous, so this waits (at most 5 s) for the postmaster to remove its
  // pid file, which it does last on any shutdown, before removing the directory.
  const killOnExit = () => {
    if (child?.kill("SIGQUIT") !== true) return;
    const deadline = Date.now() + 5_000;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (existsSync(join(dataDir, "postmaster.pid")) && Date.now() < deadline) {
      Atomics.wait(pause, 0, 0, 20);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      process.off("exit", killOnExit);
      if (child?.pid !== undefined) {
        // SIGINT is PostgreSQL's fast shutdown: abort sessions, checkpoint, exit.
        child.kill("SIGINT");
        if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
          // SIGQUIT is the immediate shutdown; the postmaster takes its backends down with it.
          child.kill("SIGQUIT");
          await waitForExit(child, STOP_TIMEOUT_MS);
        }
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await run(
      join(binDir, "initdb"),
      ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      dir,
      runAs,
    );

    const port = await freePort();
    const log = openSync(logPath, "a");
    try {
      child = spawn(
        join(binDir, "postgres"),
        [
          ["-D", dataDir],
          ["-p", String(port)],
          ["-k", dir],
          ["-c", "listen_addresses=127.0.0.1"],
          ["-c", "fsync=off"],
          ["-c", "synchronous_commit=off"],
          ["-c", "full_page_writes=off"],
        ].flat(),
        { cwd: dir, env: serverEnv(), stdio: ["ignore", log, log], ...runAs },
      );
    } finally {
      closeSync(log);
    }
    // The test runner must not wait on the server to exit; stop() and killOnExit end it.
    child.unref();
    process.on("exit", killOnExit);
    const spawned = child;
    await new Promise<void>((resolve, reject) => {
      spawned.once("spawn", resolve);
      spawned.once("error", reject);
    });

    const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
    await waitUntilReady(url, spawned, logPath);
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until an existing server (DATABASE_URL) accepts connections, so a wrong URL fails the run once. */
export async function checkPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("select 1");
  } catch (error) {
    throw new Error(`DATABASE_URL does not accept connections: ${String(error)}`);
  } finally {
    await client.end().catch(() => {});
  }
}
