import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";

/** An error from the database, with PostgreSQL's fields (code, constraint, ...). */
class PgliteError extends Error {
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

interface PgliteResult {
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

/** Where a proxy sends its requests: the database worker itself, or a port it listens on. */
type Channel = Pick<Worker, "postMessage" | "on">;

/**
 * Sessions of the database over `channel`: requests {id, session, sql, params} out, {id, result} or
 * {id, error} back. `waitReady` settles when the engine has started.
 */
function sessionsOver(channel: Channel, waitReady: Promise<void>) {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let sessions = 0;
  let failed: Error | null = null;
  channel.on("message", (m: { id?: number; result?: unknown; error?: Record<string, unknown> }) => {
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

  function send<T>(msg: Record<string, unknown>): Promise<T> {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      channel.postMessage({ id, ...msg });
    });
  }

  return {
    waitReady,
    send,
    fail,
    get failed() {
      return failed;
    },
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
  };
}

/**
 * PGlite running in a worker thread (pglite-worker.ts), with as many sessions as the caller opens:
 * statements of different sessions queue in the worker, so the engine never waits for this thread
 * between two of them, and a session's open transaction holds the others back (see the worker).
 */
export function createPgliteProxy(dataDir: string | null) {
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url), { workerData: { dataDir } });
  const waitReady = new Promise<void>((resolve, reject) => {
    const onReady = (m: { ready?: boolean; error?: Record<string, unknown> }) => {
      if (m.ready === undefined) return;
      worker.off("message", onReady);
      if (m.ready) resolve();
      else reject(new PgliteError(m.error ?? {}));
    };
    worker.on("message", onReady);
  });
  const proxy = sessionsOver(worker, waitReady);
  worker.on("error", (err) => proxy.fail(err));
  worker.on("exit", (code) => {
    if (code !== 0) proxy.fail(new Error(`the database worker exited with code ${code}`));
  });

  return {
    waitReady,
    session: proxy.session,
    /**
     * A port another thread opens sessions of this database on (pgliteOverPort): a Parquet export
     * reads its rows in its own thread, straight from the database worker.
     */
    connect(): MessagePort {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ connect: port2 }, [port2]);
      return port1;
    },
    /** Closes the database and stops the worker. */
    close: async () => {
      if (!proxy.failed) await proxy.send({ close: true });
      await worker.terminate();
    },
  };
}

/** The sessions of a database whose worker gave `port` (createPgliteProxy's `connect`), in another thread. */
export function pgliteOverPort(port: MessagePort): Pick<PgliteProxy, "waitReady" | "session"> {
  const proxy = sessionsOver(port as unknown as Channel, Promise.resolve());
  port.on("close", () => proxy.fail(new Error("the database closed")));
  return { waitReady: proxy.waitReady, session: proxy.session };
}

export type PgliteProxy = ReturnType<typeof createPgliteProxy>;
