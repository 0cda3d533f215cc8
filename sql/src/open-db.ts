// How a process opens the database, PostgreSQL by URL or the embedded PGlite in a folder, and applies
// a list of migrations to it. Every workspace's tests and the api's composition root open it here; the
// list of migrations (every workspace's, in one order) is the api's (api/src/db/migrations/index.ts).
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MessagePort } from "node:worker_threads";
import knexPkg, { type Knex } from "knex";
import type { DbLink } from "./linked-db.ts";
import { pgliteConfig } from "./linked-db.ts";
import { createPgliteProxy } from "./pglite-proxy.ts";
import type { Migration } from "./sql.ts";

const { knex } = knexPkg;

export type Db = Knex;
export type DbKind = "pglite" | "postgres";

export interface DbOptions {
  /** A postgres:// URL; when null the embedded PGlite database in `dataDir` is used. */
  readonly databaseUrl: string | null;
  /** Folder of the embedded database (`<dataDir>/pgdata`); ignored with a databaseUrl. */
  readonly dataDir: string;
  /** Connection pool size for PostgreSQL (PGlite's pool is PGLITE_SESSIONS sessions of one engine). */
  readonly poolMax?: number;
}

export interface OpenDb {
  readonly db: Db;
  readonly kind: DbKind;
  /** How another thread opens this database (openLinkedDb); its `transfer` goes with the message. */
  link(): { link: DbLink; transfer: MessagePort[] };
  /** Closes the pool (and releases the embedded database's folder). */
  close(): Promise<void>;
}

/** Opens the database: PostgreSQL when a URL is given, else PGlite on disk. Both speak the same SQL. */
export function openDb(options: DbOptions): OpenDb {
  if (options.databaseUrl) {
    const db = knex({
      client: "pg",
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
    const link = { databaseUrl: options.databaseUrl };
    return { db, kind: "postgres", link: () => ({ link, transfer: [] }), close: () => db.destroy() };
  }
  const dir = path.join(options.dataDir, "pgdata");
  mkdirSync(dir, { recursive: true });
  const release = lockDataDir(options.dataDir);
  // PGlite is one Postgres session, run in a worker thread (pglite-proxy.ts) so that it does not
  // compete with HTTP for the event loop; the pool's sessions share it (see pgliteClient).
  const pglite = createPgliteProxy(dir);
  const db = knex(pgliteConfig(pglite));
  return {
    db,
    kind: "pglite",
    link: () => {
      const port = pglite.connect();
      return { link: { pglite: port }, transfer: [port] };
    },
    close: async () => {
      try {
        await db.destroy();
        await pglite.close();
      } finally {
        release();
      }
    },
  };
}

/** Another process holds the embedded database. */
export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. Stop it first (PGlite is single-process), or use DATABASE_URL for several processes.`,
    );
    this.name = "DataDirLockedError";
  }
}

/**
 * PGlite keeps its database in one process's memory and flushes files from there: a second process
 * on the same folder would corrupt it. A pid file guards the folder; a stale one (dead pid) is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, "feedlab.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (readFileSync(file, "utf8") === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone.
        }
      };
      process.on("exit", release);
      return release;
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(file, "utf8"));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
        throw new DataDirLockedError(dataDir, pid);
      unlinkSync(file);
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** Advisory lock serialising migrations of processes that start together on one PostgreSQL. */
const MIGRATION_LOCK = 0x6d69_6772; // "migr"

interface RawConnection {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Applies every pending migration of `migrations`, in their order (one set serves PGlite and
 * PostgreSQL), after `before` (the api adopts release 0.1.0's names there); returns the names applied.
 * On PostgreSQL a session advisory lock, held on one pooled connection, serialises processes that
 * start together: knex's own lock table does not exist yet on a fresh database, so without it two
 * processes race to create it. (PGlite is single-process and has one connection.)
 */
export async function applyMigrations(
  db: Db,
  migrations: readonly Migration[],
  before: (db: Db) => Promise<unknown> = async () => {},
): Promise<string[]> {
  const migrationSource: Knex.MigrationSource<Migration> = {
    getMigrations: async () => [...migrations],
    getMigrationName: (m) => m.name,
    getMigration: async (m) => m,
  };
  const run = async () => {
    await before(db);
    return ((await db.migrate.latest({ migrationSource })) as [number, string[]])[1];
  };
  if (db.client.config.client !== "pg") return run();
  const conn = (await db.client.acquireConnection()) as RawConnection;
  try {
    await conn.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      return await run();
    } finally {
      await conn.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}
