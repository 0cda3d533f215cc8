// Migrated databases to copy: made once per test run (the global setup), so that an app a test starts
// opens a database that already holds every table instead of running every migration again. On
// 2026-12-02 here, an app on a new embedded database opened in 3.5-7.8 s and one on a copied migrated
// folder in 1.0-1.6 s (the copy of its 41 MB: 50-230 ms), and the suites start hundreds of them.
//
// The migrations run in a Node process of their own (this file, run as a script): the global setup
// runs in vite's module runner, where the embedded database cannot find its WebAssembly.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

/** What a test copies: the embedded database's folder and the PostgreSQL database, both migrated. */
export interface MigratedTemplates {
  /** A folder whose `pgdata` is a migrated embedded cluster (closed). */
  readonly pgliteDir: string;
  /** A migrated database on the run's server, for `CREATE DATABASE ... TEMPLATE`. */
  readonly postgresName: string;
  remove(): Promise<void>;
}

/** Runs `work` on a connection to the server at `serverUrl` (its maintenance database), then closes it. */
export async function withServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Makes both templates, PostgreSQL's on the server at `serverUrl`. */
export async function makeMigratedTemplates(serverUrl: string): Promise<MigratedTemplates> {
  const pgliteDir = mkdtempSync(path.join(tmpdir(), "feedlab-template-"));
  const postgresName = `feedlab_test_template_${randomBytes(6).toString("hex")}`;
  const url = new URL(serverUrl);
  url.pathname = `/${postgresName}`;
  const remove = async () => {
    rmSync(pgliteDir, { recursive: true, force: true });
    await withServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${postgresName}" WITH (FORCE)`));
  };
  await withServer(serverUrl, (c) => c.query(`CREATE DATABASE "${postgresName}"`));
  try {
    // The flag of the tests' workers (vitest.config.ts), for the same V8 fault.
    const script = new URL(import.meta.url).pathname;
    await promisify(execFile)(process.execPath, ["--no-wasm-code-gc", script, pgliteDir, url.href]);
  } catch (err) {
    await remove();
    throw err;
  }
  return { pgliteDir, postgresName, remove };
}

/** As a script: migrates the embedded database in folder `argv[2]` and the database at URL `argv[3]`. */
async function migrateBoth(pgliteDir: string, databaseUrl: string): Promise<void> {
  const { openDb } = await import("@feedlab/sql");
  const { migrate } = await import("../../api/src/db/db.ts");
  await Promise.all(
    [null, databaseUrl].map(async (url) => {
      const store = openDb({ databaseUrl: url, dataDir: pgliteDir });
      try {
        await migrate(store.db);
      } finally {
        await store.close();
      }
    }),
  );
}

const [dir, databaseUrl] = process.argv.slice(2);
if (import.meta.main && dir && databaseUrl) await migrateBoth(dir, databaseUrl);
