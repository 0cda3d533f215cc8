// Runs PGlite in a worker thread: the Postgres engine (WASM) and its wire-protocol code leave the
// event loop that serves HTTP, so the two use both cores. Messages: {id, session, sql, params} or
// {id, session, end} or {id, close} in; {id, result} or {id, error} out. {connect: port} hands over a
// port on which another thread sends the same requests and gets its answers (pglite-proxy.ts).
//
// PGlite is one Postgres session. The main thread's pool has several sessions (pglite-proxy.ts), so
// that the next statement is already here while the engine runs the current one. Statements run one
// at a time in arrival order, except that while a session holds an open transaction only that
// session's statements run: the others wait, in order, until it commits or rolls back. So every
// session sees Postgres's semantics of its own connection.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import type { EngineModules } from "./pglite-proxy.ts";

interface Request {
  readonly id: number;
  /** A session of the thread that sent the request (each thread numbers its own). */
  readonly session?: number;
  readonly sql?: string;
  readonly params?: unknown[];
  /** The session is released: roll back a transaction it left open. */
  readonly end?: boolean;
  readonly close?: boolean;
}

/** A request and where its answer goes; `session` is unique across threads (see sessionKey). */
interface Queued {
  readonly req: Request;
  readonly reply: MessagePort;
  readonly session: number;
}

/** Sessions a thread may number, at most: a session's key holds its thread and its own number. */
const PER_THREAD = 2 ** 32;
const sessionKey = (thread: number, session: number) => thread * PER_THREAD + session;
const threadOf = (key: number) => Math.floor(key / PER_THREAD);

const port = parentPort;
if (!port) throw new Error("pglite-worker.ts runs as a worker thread");
const { dataDir, modules, template, makeTemplate } = workerData as {
  dataDir: string | null;
  modules: EngineModules;
  /** A fresh cluster to start from instead of running initdb (pglite-proxy.ts, startFrom). */
  template?: SharedArrayBuffer;
  /** Send this new cluster back as the template, before any statement runs on it. */
  makeTemplate?: boolean;
};
const pg = new PGlite({
  ...(dataDir ? { dataDir } : {}),
  ...(template ? { loadDataDir: new Blob([new Uint8Array(template).slice()]) } : {}),
  pgliteWasmModule: modules.pglite,
  initdbWasmModule: modules.initdb,
});

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
const waiting: Queued[] = [];
/** The session whose transaction is open, if any: only its requests may run. */
let owner: number | undefined;
let running = false;

/** Set once the engine is closed: later requests are refused, not run on a closed engine. */
let closed = false;

async function runOne({ req, reply, session }: Queued): Promise<void> {
  if (closed) {
    reply.postMessage({ id: req.id, error: { message: "the embedded database is closed" } });
    return;
  }
  if (req.close) {
    closed = true;
    await pg.close();
    reply.postMessage({ id: req.id, result: null });
    return;
  }
  if (req.end) {
    if (owner === session && pg.isInTransaction()) await pg.query("rollback").catch(() => {});
    if (owner === session) owner = undefined;
    reply.postMessage({ id: req.id, result: null });
    return;
  }
  try {
    const r = await pg.query(req.sql ?? "", req.params ?? []);
    reply.postMessage({
      id: req.id,
      result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows },
    });
  } catch (err) {
    reply.postMessage({ id: req.id, error: errorFields(err) });
  } finally {
    owner = pg.isInTransaction() ? session : undefined;
  }
}

/** The next request allowed to run: the oldest, or the oldest of the session in a transaction. */
function next(): Queued | undefined {
  const i =
    owner === undefined ? (waiting.length > 0 ? 0 : -1) : waiting.findIndex((q) => q.session === owner);
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

/** The cluster as initdb left it, in memory that every thread of the process can read. */
async function templateOf(db: PGlite): Promise<SharedArrayBuffer> {
  const tar = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
  const shared = new SharedArrayBuffer(tar.byteLength);
  new Uint8Array(shared).set(tar);
  return shared;
}

pg.waitReady.then(
  async () => {
    if (makeTemplate) port.postMessage({ template: await templateOf(pg).catch(() => undefined) });
    ready = true;
    port.postMessage({ ready: true });
    void pump();
  },
  (err) => port.postMessage({ ready: false, error: errorFields(err) }),
);

/** Takes the requests that arrive on `from`; the thread behind it is the `thread`th to connect. */
function listen(from: MessagePort, thread: number): void {
  from.on("message", (m: Request | { connect: MessagePort }) => {
    if ("connect" in m) return listen(m.connect, ++threads);
    waiting.push({ req: m, reply: from, session: sessionKey(thread, m.session ?? 0) });
    void pump();
  });
  // A thread that stopped (an export whose client went away) leaves no transaction open behind it.
  from.on("close", () => {
    const mine = (session: number) => threadOf(session) === thread;
    for (let i = waiting.length - 1; i >= 0; i--)
      if (mine((waiting[i] as Queued).session)) waiting.splice(i, 1);
    if (owner !== undefined && mine(owner)) {
      waiting.unshift({ req: { id: -1, end: true }, reply: from, session: owner });
      void pump();
    }
  });
}
let threads = 0;
listen(port as MessagePort, 0);
