// Runs PGlite in a worker thread: the Postgres engine (WASM) and its wire-protocol code leave the
// event loop that serves HTTP, so the two use both cores. Messages: {id, session, sql, params} or
// {id, session, end} or {id, close} in; {id, result} or {id, error} out.
//
// PGlite is one Postgres session. The main thread's pool has several sessions (pglite-proxy.ts), so
// that the next statement is already here while the engine runs the current one. Statements run one
// at a time in arrival order, except that while a session holds an open transaction only that
// session's statements run: the others wait, in order, until it commits or rolls back. So every
// session sees Postgres's semantics of its own connection.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

interface Request {
  readonly id: number;
  readonly session?: number;
  readonly sql?: string;
  readonly params?: unknown[];
  /** The session is released: roll back a transaction it left open. */
  readonly end?: boolean;
  readonly close?: boolean;
}

const port = parentPort;
if (!port) throw new Error("pglite-worker.ts runs as a worker thread");
const { dataDir } = workerData as { dataDir: string | null };
const pg = dataDir ? new PGlite(dataDir) : new PGlite();

/** The fields of a database error that callers look at (SQLSTATE code and the like). */
function errorFields(err: unknown) {
  const e = err as Record<string, unknown>;
  const out: Record<string, unknown> = { message: String(e?.message ?? err) };
  for (const k of [
    "code",
    "detail",
    "hint",
    "constraint",
    "table",
    "column",
    "schema",
    "severity",
    "position",
    "where",
  ]) {
    if (e?.[k] !== undefined) out[k] = e[k];
  }
  return out;
}

let ready = false;
/** Requests not yet run, in arrival order. */
const waiting: Request[] = [];
/** The session whose transaction is open, if any: only its requests may run. */
let owner: number | undefined;
let running = false;

async function runOne(req: Request): Promise<void> {
  if (req.close) {
    await pg.close();
    port?.postMessage({ id: req.id, result: null });
    return;
  }
  if (req.end) {
    if (owner === req.session && pg.isInTransaction()) await pg.query("rollback").catch(() => {});
    if (owner === req.session) owner = undefined;
    port?.postMessage({ id: req.id, result: null });
    return;
  }
  try {
    const r = await pg.query(req.sql ?? "", req.params ?? []);
    port?.postMessage({
      id: req.id,
      result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows },
    });
  } catch (err) {
    port?.postMessage({ id: req.id, error: errorFields(err) });
  } finally {
    owner = pg.isInTransaction() ? req.session : undefined;
  }
}

/** The next request allowed to run: the oldest, or the oldest of the session in a transaction. */
function next(): Request | undefined {
  const i =
    owner === undefined ? (waiting.length > 0 ? 0 : -1) : waiting.findIndex((r) => r.session === owner);
  return i < 0 ? undefined : waiting.splice(i, 1)[0];
}

async function pump(): Promise<void> {
  if (running || !ready) return;
  running = true;
  try {
    for (let req = next(); req; req = next()) await runOne(req);
  } finally {
    running = false;
  }
}

pg.waitReady.then(
  () => {
    ready = true;
    port.postMessage({ ready: true });
    void pump();
  },
  (err) => port.postMessage({ ready: false, error: errorFields(err) }),
);

port.on("message", (req: Request) => {
  waiting.push(req);
  void pump();
});
