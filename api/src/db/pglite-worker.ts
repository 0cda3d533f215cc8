// Runs PGlite in a worker thread: the Postgres engine (WASM) and its wire-protocol code leave the
// event loop that serves HTTP, so the two use both cores. Messages: {id, sql, params} in,
// {id, result} or {id, error} out, in order (PGlite is one connection; order is its semantics).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

interface Request {
  readonly id: number;
  readonly sql?: string;
  readonly params?: unknown[];
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

let queue: Promise<void> = pg.waitReady.then(
  () => port.postMessage({ ready: true }),
  (err) => port.postMessage({ ready: false, error: errorFields(err) }),
);

port.on("message", (req: Request) => {
  queue = queue.then(async () => {
    if (req.close) {
      await pg.close();
      port.postMessage({ id: req.id, result: null });
      return;
    }
    try {
      const r = await pg.query(req.sql ?? "", req.params ?? []);
      port.postMessage({
        id: req.id,
        result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows },
      });
    } catch (err) {
      port.postMessage({ id: req.id, error: errorFields(err) });
    }
  });
});
