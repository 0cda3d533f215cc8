import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

/** The engine's two WebAssembly modules, compiled once per process and shared by every database. */
export interface EngineModules {
  readonly pglite: WebAssembly.Module;
  readonly initdb: WebAssembly.Module;
}

let compiled: EngineModules | undefined;

/**
 * Compiles PGlite's modules the first time a database opens (lazily: about 40 ms here) and keeps
 * them for the life of the process. Every worker instantiates the same modules, so their machine code
 * is made once and never freed. A module per database would be compiled, tiered up and freed again
 * with each one: slower, and V8 (Node 24) can abort the whole process when many threads free wasm code
 * at once (nodejs/node#64500).
 */
function engineModules(): EngineModules {
  if (!compiled) {
    const dist = new URL("./", import.meta.resolve("@electric-sql/pglite"));
    const load = (file: string) => new WebAssembly.Module(readFileSync(new URL(file, dist)));
    compiled = { pglite: load("pglite.wasm"), initdb: load("initdb.wasm") };
  }
  return compiled;
}

/**
 * A freshly initialised cluster (the engine's `dumpDataDir`), shared by the process's later new
 * databases: loading it takes about a fifth of the time initdb takes. Only a process that opens a
 * second new database makes one (a test run, a dry run), so a server on one data directory keeps
 * no copy.
 */
const template: { tar?: SharedArrayBuffer; making: boolean; fresh: number } = { making: false, fresh: 0 };

/** What a new worker is given to start from, and whether it makes the template. */
function startFrom(dataDir: string | null): { template?: SharedArrayBuffer; makeTemplate?: true } {
  const fresh = dataDir === null || !existsSync(join(dataDir, "PG_VERSION"));
  if (!fresh) return {};
  template.fresh++;
  if (template.tar) return { template: template.tar };
  if (template.fresh < 2 || template.making) return {};
  template.making = true;
  return { makeTemplate: true };
}

/**
 * PGlite running in a worker thread (pglite-worker.ts), with as many sessions as the caller opens:
 * statements of different sessions queue in the worker, so the engine never waits for this thread
 * between two of them, and a session's open transaction holds the others back (see the worker).
 */
export function createPgliteProxy(dataDir: string | null) {
  const start = startFrom(dataDir);
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url), {
    workerData: { dataDir, modules: engineModules(), ...start },
  });
  let notReady: (err: Error) => void = () => {};
  const waitReady = new Promise<void>((resolve, reject) => {
    notReady = reject;
    const onReady = (m: {
      ready?: boolean;
      error?: Record<string, unknown>;
      template?: SharedArrayBuffer;
    }) => {
      if (m.template) template.tar = m.template;
      if (m.ready === undefined) return;
      if (start.makeTemplate && !template.tar) template.making = false;
      worker.off("message", onReady);
      if (m.ready) resolve();
      else reject(new PgliteError(m.error ?? {}));
    };
    worker.on("message", onReady);
  });
  const proxy = sessionsOver(worker, waitReady);
  // A worker that dies before the engine is ready fails the open instead of leaving it waiting.
  const failed = (err: Error) => {
    notReady(err);
    proxy.fail(err);
  };
  worker.on("error", failed);
  worker.on("exit", (code) => {
    if (code !== 0) failed(new Error(`the database worker exited with code ${code}`));
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
