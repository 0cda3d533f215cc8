// How every workspace reaches the database: the knex clients of the two databases (PostgreSQL by URL,
// the embedded one through its worker thread), without the migrations and services api/src/db/db.ts
// brings, so a worker thread that only reads or projects (the Parquet export, the projector's batches)
// loads only this module.
import { createRequire } from "node:module";
import type { MessagePort } from "node:worker_threads";
import knexPkg, { type Knex } from "knex";
import { type PgliteProxy, type PgliteSession, pgliteOverPort } from "./pglite-proxy.ts";

const { knex } = knexPkg;

interface QueryObject {
  method?: string;
}
type ClientBase = new (
  config: Knex.Config,
) => {
  processResponse(obj: QueryObject, runner: unknown): unknown;
  initializePool(config: Record<string, unknown>): void;
  _acquireOnlyConnection(): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<void>;
};

const require = createRequire(import.meta.url);

/** Sessions of the embedded database in the pool (see pglite-proxy.ts): the depth of its queue. */
const PGLITE_SESSIONS = 8;

/**
 * The knex client of the embedded database. knex-pglite (and through it PGlite's JavaScript) is
 * loaded only when a process opens PGlite: a process on PostgreSQL never needs it, and every module
 * loaded stays in the server's memory for its lifetime.
 *
 * knex-pglite fixes its pool at one connection, PGlite being one session; then the engine waits for
 * the event loop between any two statements (the result travels back, knex releases the connection,
 * the next query is sent). This client's pool holds several sessions of the worker (pglite-proxy.ts),
 * which queues their statements and keeps a transaction to its own session.
 *
 * knex-pglite reports `del()` queries as command "DEL", which knex's pg response handling does not
 * recognise, so deletes answer a raw result instead of the row count: the subclass names them "delete".
 */
function pgliteClient(): ClientBase {
  const ClientPgLite = require("knex-pglite") as ClientBase;
  return class PgLiteClient extends ClientPgLite {
    declare pglite: Pick<PgliteProxy, "waitReady" | "session">;
    /** Marks the embedded engine's client (isEmbedded). */
    readonly embedded = true;
    override initializePool(config: Record<string, unknown>): void {
      super.initializePool({
        ...config,
        pool: { min: 0, max: PGLITE_SESSIONS, createTimeoutMillis: PGLITE_START_MS },
      });
    }
    override async _acquireOnlyConnection(): Promise<PgliteSession> {
      await this.pglite.waitReady;
      return this.pglite.session();
    }
    override async destroyRawConnection(connection: PgliteSession): Promise<void> {
      await connection.close();
    }
    override processResponse(obj: QueryObject, runner: unknown): unknown {
      return super.processResponse(obj.method === "del" ? { ...obj, method: "delete" } : obj, runner);
    }
  };
}

/** Whether `sql` runs on the embedded engine (PGlite) rather than PostgreSQL. */
const isEmbedded = (sql: Knex | Knex.Transaction): boolean =>
  (sql.client as { embedded?: boolean }).embedded === true;

/**
 * The rows of a query that answers many (one per participant of a study), in its order. PGlite makes
 * an object of each row of a result in JavaScript, 7 to 9 µs a row here (10,000 participants' rows
 * took 65-95 ms to arrive where the query took 4 ms), so on the embedded engine the database
 * aggregates the rows into one JSON text, parsed at once (a third of the time). PostgreSQL's driver
 * is faster than that JSON, so there the query runs as it is. Values come as JSON has them: the
 * query's columns must be text, numbers, booleans or JSON (a timestamp would come as text).
 * `columns`, the query's output columns in any order: each row then travels as an array of their
 * values, without its keys (half the text for a wide row, and less to aggregate and parse).
 */
export async function manyRows<T>(
  sql: Knex | Knex.Transaction,
  query: Knex.QueryBuilder,
  columns?: readonly string[],
): Promise<T[]> {
  if (!isEmbedded(sql)) return (await query) as T[];
  // A sorted subquery feeds json_agg in its order (the one form PostgreSQL's docs give for it).
  const each = columns === undefined ? "x" : `json_build_array(${columns.map(() => "x.??").join(", ")})`;
  const [row] = (
    (await sql.raw(`select coalesce(json_agg(${each}), '[]')::text as rows from (?) as x`, [
      ...(columns ?? []),
      query,
    ])) as {
      rows: { rows: string }[];
    }
  ).rows;
  const parsed = JSON.parse(row?.rows ?? "[]") as unknown[];
  if (columns === undefined) return parsed as T[];
  return (parsed as unknown[][]).map((values) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) out[columns[i] as string] = values[i];
    return out as T;
  });
}

/**
 * How long a first connection may wait for the embedded engine to start. Its start is a computation
 * of this process (compiling and booting the WASM engine), not a peer that may be gone: on a busy
 * machine it has taken over 30 s, knex's default, and then the server failed to start. So it is
 * waited for, up to this bound.
 */
const PGLITE_START_MS = 300_000;

/** The knex configuration of the embedded database behind `pglite` (a proxy of its worker). */
export function pgliteConfig(pglite: Pick<PgliteProxy, "waitReady" | "session">): Knex.Config {
  return {
    client: pgliteClient(),
    dialect: "postgres",
    connection: () => ({ pglite }),
    acquireConnectionTimeout: PGLITE_START_MS,
  } as unknown as Knex.Config;
}

/**
 * A database as another thread of this process reaches it: PostgreSQL by its URL, the embedded one
 * through a port of its worker (PGlite is one engine per process).
 */
export type DbLink = { readonly databaseUrl: string } | { readonly pglite: MessagePort };

/** A database another thread can open: `transfer` goes with the message that carries `link`. */
export interface LinkableDb {
  link(): { link: DbLink; transfer: MessagePort[] };
}

/** The database of `link` in a worker thread, with a pool of one connection. */
export function openLinkedDb(link: DbLink): Knex {
  if ("databaseUrl" in link)
    return knex({ client: "pg", connection: link.databaseUrl, pool: { min: 0, max: 1 } });
  const pglite = pgliteOverPort(link.pglite);
  return knex(pgliteConfig(pglite));
}
