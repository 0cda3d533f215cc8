import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "skipped";
type RunTrigger = "schedule" | "manual";

/** A run the trainer is working on. */
export interface RunRef {
  readonly id: string;
  readonly experimentId: string;
  readonly trigger: RunTrigger;
}

/** Why a run was interrupted: the trainer process ended or stopped while it ran. */
export const INTERRUPTED = "Interrupted: the trainer stopped before this run finished.";

/** Records a run that starts now (scheduled runs start at once; manual ones are queued by the API). */
export async function insertRunningRun(db: Knex, run: RunRef, now: Date): Promise<void> {
  await db("model_runs").insert({
    id: run.id,
    experiment_id: run.experimentId,
    status: "running",
    trigger: run.trigger,
    created_at: now,
    started_at: now,
  });
}

/**
 * Queues a manual run of the experiment (the leading trainer takes it within its poll interval);
 * when one is already queued, answers its id instead of queueing a second.
 */
export async function queueRun(
  db: Knex,
  experimentId: string,
  newId: () => string,
  now: Date,
): Promise<string> {
  return db.transaction(async (trx) => {
    const queued = (await trx("model_runs")
      .where({ experiment_id: experimentId, status: "queued" })
      .orderBy("created_at")
      .first("id")) as { id: string } | undefined;
    if (queued) return queued.id;
    const id = newId();
    await trx("model_runs").insert({
      id,
      experiment_id: experimentId,
      status: "queued",
      trigger: "manual",
      created_at: now,
    });
    return id;
  });
}

/** A row of `model_runs`, as stored. */
export interface ModelRunRow {
  readonly id: string;
  readonly experiment_id: string;
  readonly status: RunStatus;
  readonly trigger: RunTrigger;
  readonly created_at: Date;
  readonly started_at: Date | null;
  readonly finished_at: Date | null;
  readonly interactions: number | null;
  readonly users: number | null;
  readonly videos: number | null;
  readonly watermark: Date | null;
  readonly metrics: unknown;
  readonly skipped_reason: string | null;
  readonly error: string | null;
}

/** The experiment's runs, newest first, at most `limit`. */
export async function listRuns(db: Knex, experimentId: string, limit: number): Promise<ModelRunRow[]> {
  return (await db("model_runs")
    .where({ experiment_id: experimentId })
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(limit)
    .select("*")) as ModelRunRow[];
}

/** Takes the oldest queued run, marking it running; null when none is queued. */
export async function claimQueuedRun(db: Knex, now: Date): Promise<RunRef | null> {
  const result = await db.raw(
    `update model_runs set status = 'running', started_at = ?
     where id = (select id from model_runs where status = 'queued' order by created_at, id limit 1) and status = 'queued'
     returning id, experiment_id, trigger`,
    [now],
  );
  const row = rowsOf<{ id: string; experiment_id: string; trigger: RunTrigger }>(result)[0];
  return row ? { id: row.id, experimentId: row.experiment_id, trigger: row.trigger } : null;
}

/**
 * Marks runs left `running` as failed. Only the leading trainer runs models, so when a process
 * becomes the leader, a run still marked running belongs to a trainer that is gone.
 */
export async function failInterruptedRuns(db: Knex, now: Date): Promise<number> {
  return db("model_runs")
    .where({ status: "running" })
    .update({ status: "failed", finished_at: now, error: INTERRUPTED });
}

/**
 * Experiments due for a scheduled run: running, with a group that serves `learned_model` on a page,
 * and without a scheduled run since `since`.
 */
export async function dueExperiments(db: Knex, since: Date): Promise<string[]> {
  const result = await db.raw(
    `select e.id from experiments e
     where e.status = 'running'
       and exists (select 1 from groups g where g.experiment_id = e.id
                   and (g.algorithm_feed = 'learned_model' or g.algorithm_watch = 'learned_model'))
       and not exists (select 1 from model_runs r where r.experiment_id = e.id and r.trigger = 'schedule'
                       and r.created_at > ?)
     order by e.id`,
    [since],
  );
  return rowsOf<{ id: string }>(result).map((r) => r.id);
}
