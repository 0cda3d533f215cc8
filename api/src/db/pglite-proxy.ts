import { Worker } from "node:worker_threads";

/** An error from the database, with PostgreSQL's fields (code, constraint, ...). */
export class PgliteError extends Error {
  constructor(fields: Record<string, unknown>) {
    super(String(fields.message ?? "database error"));
    this.name = "PgliteError";
    Object.assign(this, fields);
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface PgliteResult {
  rows: unknown[];
  fields: unknown[];
  affectedRows?: number;
}

/** One session of the embedded database: what knex-pglite uses of a PGlite instance. */
export interface PgliteSession {
  readonly waitReady: Promise<void>;
  query(sql: string, params?: unknown[]): Promise<PgliteResult>;
  /** Releases the session (a transaction it left open is rolled back); the database stays open. */
  close(): Promise<void>;
}

/**
 * PGlite running in a worker thread (pglite-worker.ts), with as many sessions as the caller opens:
 * statements of different sessions queue in the worker, so the engine never waits for this thread
 * between two of them, and a session's open transaction holds the others back (see the worker).
 */
export function createPgliteProxy(dataDir: string | null) {
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let sessions = 0;
  let failed: Error | null = null;
  const waitReady = new Promise<void>((resolve, reject) => {
    const onReady = (m: { ready?: boolean; error?: Record<string, unknown> }) => {
      if (m.ready === undefined) return;
      worker.off("message", onReady);
      if (m.ready) resolve();
      else reject(new PgliteError(m.error ?? {}));
    };
    worker.on("message", onReady);
  });
  worker.on("message", (m: { id?: number; result?: unknown; error?: Record<string, unknown> }) => {
    if (m.id === undefined) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(new PgliteError(m.error));
    else p.resolve(m.result);
  });
  const fail = (err: Error) => {
    failed = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("error", (err) => fail(err));
  worker.on("exit", (code) => {
    if (code !== 0) fail(new Error(`the database worker exited with code ${code}`));
  });

  function send<T>(msg: Record<string, unknown>): Promise<T> {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, ...msg });
    });
  }

  return {
    waitReady,
    /** A new session of the database. */
    session(): PgliteSession {
      const session = ++sessions;
      return {
        waitReady,
        query: (sql, params) => send<PgliteResult>({ session, sql, params }),
        close: async () => {
          if (!failed) await send({ session, end: true });
        },
      };
    },
    /** Closes the database and stops the worker. */
    close: async () => {
      if (!failed) await send({ close: true });
      await worker.terminate();
    },
  };
}

export type PgliteProxy = ReturnType<typeof createPgliteProxy>;
