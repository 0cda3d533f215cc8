import type { DryRun, DryRunArm, DryRunCreate, DryRunStatus } from "@feedlab/schemas";
import type { Logger } from "pino";
import { iso, isoOrNull, json } from "../../db/present.ts";
import type { ServiceDeps } from "../../deps.ts";
import { experimentExists, experimentRow } from "../../experiments/queries/experiments.queries.ts";
import { armCount } from "../../groups/queries/groups.queries.ts";
import { conflict, notFound, unprocessable } from "../../http/errors.ts";
import { findChromium } from "../drive/chromium.ts";
import type { RunnerDeps } from "./runner.ts";
import { runDryRun } from "./runner.ts";

/** A dry run's wall-clock budget (issue 36: default 10 minutes). */
const DEFAULT_BUDGET_MS = 10 * 60_000;

interface DryRunRow {
  id: string;
  experiment_id: string;
  status: DryRunStatus;
  participants_per_arm: number;
  browser: boolean;
  seed: string | number;
  done: number;
  total: number;
  arms: DryRunArm[] | string;
  warnings: string[] | string;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/**
 * A stored arm as the report shows it. Reports from before `completion_not_tested` say nothing of it:
 * an arm where nobody finished and that was not red for it is said to be untested, without the why.
 */
const presentArm = (a: DryRunArm): DryRunArm => {
  if (a.completion_not_tested !== undefined) return a;
  const red = a.problems.some(
    (p) => p.kind === "completion_not_reached" || p.kind === "redirect_placeholder",
  );
  return {
    ...a,
    completion_not_tested:
      a.finished === 0 && !red ? "No simulated participant of this arm reached the completion." : null,
  };
};

const present = (r: DryRunRow): DryRun => {
  const arms = json<DryRunArm[]>(r.arms, []).map(presentArm);
  return {
    id: r.id,
    experiment_id: r.experiment_id,
    status: r.status,
    browser: r.browser,
    participants_per_arm: r.participants_per_arm,
    seed: Number(r.seed),
    progress: { done: r.done, total: r.total },
    created_at: iso(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
    ok: r.status === "done" ? arms.every((a) => a.problems.length === 0) : null,
    error: r.error,
    warnings: json<string[]>(r.warnings, []),
    arms,
  };
};

export interface DryRunsServiceDeps extends ServiceDeps {
  readonly log: Logger;
  readonly runner: Omit<RunnerDeps, "db">;
  /** `FEEDLAB_CHROMIUM`: the browser to drive; null looks in the usual places. */
  readonly chromium?: string | null;
  readonly budgetMs?: number;
  /** Erases every simulated participant of an experiment (as erasure does). */
  eraseSimulated(experimentId: string): Promise<void>;
}

/**
 * Dry runs (api.md "Simulated participants"): queued per process and run one at a time, each
 * recording its progress and, when done, its report. Reports hold no participant data beyond the
 * simulated login ids, and stay when the participants are erased.
 */
export function createDryRunsService(deps: DryRunsServiceDeps) {
  const { db, newId, now, log } = deps;
  let queue: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  /** Set when the process stops: queued runs no longer start (their database is closing). */
  let stopping = false;

  async function find(experimentId: string, runId: string): Promise<DryRunRow> {
    const row = (await db("dry_runs").where({ id: runId, experiment_id: experimentId }).first()) as
      | DryRunRow
      | undefined;
    if (!row) throw notFound("dry_run", "dry run");
    return row;
  }

  /** Runs one dry run; never rejects: a failure, the database's included, is the run's, logged. */
  async function execute(runId: string, baseUrl: string): Promise<void> {
    if (stopping) return;
    try {
      const row = (await db("dry_runs").where({ id: runId }).first()) as DryRunRow;
      await db("dry_runs").where({ id: runId }).update({ status: "running", started_at: now() });
      const outcome = await runDryRun(
        { db, ...deps.runner },
        {
          runId,
          experimentId: row.experiment_id,
          perArm: row.participants_per_arm,
          browser: row.browser,
          seed: Number(row.seed),
          baseUrl,
          chromium: deps.chromium ?? null,
          deadline: Date.now() + (deps.budgetMs ?? DEFAULT_BUDGET_MS),
        },
        async (done, total) => {
          await db("dry_runs").where({ id: runId }).update({ done, total });
        },
      );
      await db("dry_runs")
        .where({ id: runId })
        .update({
          status: "done",
          arms: JSON.stringify(outcome.arms),
          warnings: JSON.stringify(outcome.warnings),
          finished_at: now(),
        });
    } catch (err) {
      log.warn({ err, run: runId }, "dry run failed");
      await db("dry_runs")
        .where({ id: runId })
        .update({ status: "failed", error: (err as Error).message, finished_at: now() })
        .catch(() => {});
    }
  }

  return {
    /** Queues a dry run of a draft or running experiment; `baseUrl` is this server's own address. */
    async create(experimentId: string, body: DryRunCreate, baseUrl: string): Promise<DryRun> {
      const exp = await experimentRow<{ status: string }>(db, experimentId, "status");
      if (!exp) throw notFound("experiment");
      if (exp.status !== "draft" && exp.status !== "running")
        throw conflict(
          "experiment_not_open",
          `A dry run needs a draft or running experiment; this one is ${exp.status}.`,
        );
      const browser = body.browser !== false;
      if (browser && findChromium(deps.chromium ?? null) === null)
        throw unprocessable(
          "no_browser",
          "A browser dry run needs Chromium, and this server has none. Install it (Debian or Ubuntu: apt-get install -y chromium), set FEEDLAB_CHROMIUM to its path, or run the dry run without a browser.",
          { install: "apt-get install -y chromium", setting: "FEEDLAB_CHROMIUM" },
        );
      if ((await armCount(db, experimentId)) === 0)
        throw unprocessable(
          "experiment_not_ready",
          "The experiment has no arms to run simulated participants in.",
        );
      const row = {
        id: newId(),
        experiment_id: experimentId,
        status: "queued",
        participants_per_arm: body.participants_per_arm ?? 3,
        browser,
        seed: body.seed ?? Math.floor(Math.random() * 2 ** 31),
        created_at: now(),
      };
      await db("dry_runs").insert(row);
      // Read before it is queued: the answer is the run as queued, which an idle queue would
      // otherwise start (and mark running) while this read waits.
      const queued = (await db("dry_runs").where({ id: row.id }).first()) as DryRunRow;
      const run = queue.then(() => execute(row.id, baseUrl));
      queue = run;
      inFlight.add(run);
      void run.then(() => inFlight.delete(run));
      return present(queued);
    },

    async list(experimentId: string): Promise<DryRun[]> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const rows = (await db("dry_runs")
        .where({ experiment_id: experimentId })
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")) as DryRunRow[];
      return rows.map(present);
    },

    async get(experimentId: string, runId: string): Promise<DryRun> {
      return present(await find(experimentId, runId));
    },

    /** Erases every simulated participant of the experiment; the reports stay. */
    async erase(experimentId: string): Promise<void> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      await deps.eraseSimulated(experimentId);
    },

    /** Waits for the runs this process started (shutdown, tests). */
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },

    /**
     * The process stops: runs still queued do not start (they stay `queued`, as after a crash), and
     * the one running ends as failed when its database closes under it.
     */
    stop(): void {
      stopping = true;
    },
  };
}

export type DryRunsService = ReturnType<typeof createDryRunsService>;
