import type { Knex } from "knex";
import { executeRun, type RunnerDeps } from "./runner.ts";
import {
  claimQueuedRun,
  dueExperiments,
  failInterruptedRuns,
  insertRunningRun,
  type RunStatus,
} from "./runs.ts";

export interface TrainerOptions extends RunnerDeps {
  readonly db: Knex;
  readonly newId: () => string;
  /** True while this process is the deployment's one trainer (`holdLeadership`). */
  readonly isLeader: () => boolean;
  /** A running experiment that serves `learned_model` gets a scheduled run this often (FEEDLAB_TRAIN_INTERVAL_S). */
  readonly intervalMs: number;
  /** How often the queue (runs requested through the API) and the schedule are checked (default 2 s). */
  readonly pollMs?: number;
}

export interface Trainer {
  /** Starts checking every `pollMs`. */
  start(): void;
  /**
   * One pass, only while leading: queued runs (oldest first), then a scheduled run of each
   * experiment due. Passes never overlap (a call during a pass waits for it and runs after).
   */
  tick(): Promise<RunStatus[]>;
  /** Stops checking, interrupts a run in progress (recorded as failed) and waits for it. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The trainer: runs models on the schedule and on request, one at a time, only while this process
 * leads. Scheduled runs are due per experiment when its last scheduled run is older than the
 * interval (stored, so a restart or a new leader keeps the rhythm instead of training everything at
 * once); a run with nothing new since the last model records itself as skipped.
 */
export function createTrainer(options: TrainerOptions): Trainer {
  const { db, logger, now, newId, isLeader, intervalMs } = options;
  const pollMs = options.pollMs ?? 2000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let leading = false;
  let chain: Promise<unknown> = Promise.resolve();

  async function pass(): Promise<RunStatus[]> {
    const outcomes: RunStatus[] = [];
    if (stopped) return outcomes;
    if (!isLeader()) {
      leading = false;
      return outcomes;
    }
    if (!leading) {
      leading = true;
      const n = await failInterruptedRuns(db, now());
      if (n > 0) logger.warn({ runs: n }, "runs of a previous trainer marked as interrupted");
    }
    // 1. Requested runs first: an admin is waiting for them.
    for (;;) {
      if (stopped || !isLeader()) return outcomes;
      const run = await claimQueuedRun(db, now());
      if (!run) break;
      outcomes.push(await executeRun(options, run, controller.signal));
    }
    // 2. The schedule.
    for (const experimentId of await dueExperiments(db, new Date(now().getTime() - intervalMs))) {
      if (stopped || !isLeader()) return outcomes;
      const run = { id: newId(), experimentId, trigger: "schedule" as const };
      await insertRunningRun(db, run, now());
      outcomes.push(await executeRun(options, run, controller.signal));
    }
    return outcomes;
  }

  const tick = (): Promise<RunStatus[]> => {
    const next = chain.then(pass, pass);
    chain = next.catch(() => {});
    return next;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      tick()
        .catch((err) => logger.error({ err }, "trainer pass failed"))
        .finally(schedule);
    }, pollMs);
    timer.unref();
  };

  return {
    start() {
      if (timer || stopped) return;
      logger.info({ interval_s: intervalMs / 1000 }, "trainer started");
      schedule();
    },
    tick,
    async stop() {
      if (stopped) return chain.then(() => {});
      stopped = true;
      if (timer) clearTimeout(timer);
      controller.abort(new Error("the trainer stopped"));
      await chain;
    },
  };
}
