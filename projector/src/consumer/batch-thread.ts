import { Worker } from "node:worker_threads";
import type { LinkableDb } from "@feedlab/sql";
import type { Logger } from "pino";
import type { ApplyBatch, BatchResult } from "./batch-applier.ts";
import { type BatchJob, errorOf, type LogLevel } from "./batch-messages.ts";

const WORKER = new URL("./batch.worker.ts", import.meta.url);

interface Pending {
  resolve: (r: BatchResult) => void;
  reject: (e: unknown) => void;
}

/**
 * The projector's batches applied in a thread of their own (batch.worker.ts), which opens the
 * database on a link of `store`: the embedded database's transactions then never wait for this
 * thread's event loop. The thread starts with `start` or the first batch, and again after it
 * failed; a batch in flight when it fails is rejected, and the log delivers it again.
 */
export function applyInThread(
  store: LinkableDb,
  job: BatchJob,
  logger: Logger,
): { apply: ApplyBatch; start(): void; close(): Promise<void> } {
  let worker: Worker | null = null;
  const pending = new Map<number, Pending>();
  let nextId = 1;

  function fail(err: Error) {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker = null;
  }

  function spawn(): Worker {
    const { link, transfer } = store.link();
    const w = new Worker(WORKER, { workerData: { ...job, link }, transferList: transfer });
    w.on(
      "message",
      (m: { id?: number; result?: BatchResult; error?: Record<string, unknown>; log?: Line }) => {
        if (m.log)
          return logger[m.log.level](
            { ...m.log.obj, err: m.log.obj.err && errorOf(m.log.obj.err as Record<string, unknown>) },
            m.log.msg,
          );
        const p = m.id === undefined ? undefined : pending.get(m.id);
        if (!p || m.id === undefined) return;
        pending.delete(m.id);
        if (m.error) p.reject(errorOf(m.error));
        else p.resolve(m.result as BatchResult);
      },
    );
    w.on("error", (err) => {
      if (worker === w) fail(err);
    });
    w.on("exit", (code) => {
      if (worker === w) fail(new Error(`the projector's thread exited with code ${code}`));
    });
    return w;
  }

  return {
    apply: (records) =>
      new Promise<BatchResult>((resolve, reject) => {
        worker ??= spawn();
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, records });
      }),
    /** Starts the thread ahead of the first batch (it loads its modules and opens the database). */
    start: () => {
      worker ??= spawn();
    },
    close: async () => {
      const w = worker;
      worker = null;
      await w?.terminate();
    },
  };
}

interface Line {
  readonly level: LogLevel;
  readonly obj: Record<string, unknown>;
  readonly msg: string;
}
