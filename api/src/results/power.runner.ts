import { Worker } from "node:worker_threads";
import type { ResamplingAnswer, ResamplingJob } from "./power.resampling.ts";

/** The worker thread that runs the resampling (power.worker.ts). */
const POWER_WORKER = new URL("./power.worker.ts", import.meta.url);

/** A message to the worker: one job, numbered so its answer finds its request. */
export interface ToPowerWorker {
  readonly id: number;
  readonly job: ResamplingJob;
}

/** The worker's answer to job `id`, or why it failed. */
export type FromPowerWorker =
  | { readonly id: number; readonly answer: ResamplingAnswer }
  | { readonly id: number; readonly error: string };

/**
 * Runs resampling jobs in one long-lived worker thread, off the API's event loop: a search simulates
 * millions of participants, which would otherwise hold every participant's feed request for as long.
 * The thread starts with the first job and stays (its compiled code warm: a fresh thread per request
 * made the benchmark three times slower); it is unref'd, so it never keeps the process alive, and jobs
 * queue in it one at a time. A thread that dies fails its pending jobs; the next job starts a new one.
 */
export function createResamplingRunner() {
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (a: ResamplingAnswer) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    worker = null;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const thread = (): Worker => {
    if (worker) return worker;
    const w = new Worker(POWER_WORKER);
    w.unref();
    w.on("message", (m: FromPowerWorker) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if ("error" in m) p?.reject(new Error(`power resampling failed: ${m.error}`));
      else p?.resolve(m.answer);
    });
    w.on("error", failAll);
    w.on("exit", (code) => {
      if (worker === w) failAll(new Error(`the power resampling thread stopped (exit code ${code})`));
    });
    worker = w;
    return w;
  };
  return {
    /** The job's answer; the pilot's arrays move to the thread (transferred, unusable here after). */
    run(job: ResamplingJob): Promise<ResamplingAnswer> {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        thread().postMessage({ id, job } satisfies ToPowerWorker, [
          job.pilot.xs.buffer as ArrayBuffer,
          job.pilot.ys.buffer as ArrayBuffer,
        ]);
      });
    },
    /** Ends the thread (idempotent); a later job starts a new one. */
    async stop(): Promise<void> {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

export type ResamplingRunner = ReturnType<typeof createResamplingRunner>;
