import type { ModelRun } from "@feedlab/schemas";
import { listRuns, type ModelRunRow, queueRun } from "@feedlab/trainer";
import { iso, isoOrNull, json, numOrNull } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentExists } from "../experiments/queries/experiments.queries.ts";
import { notFound } from "../http/errors.ts";

const presentModelRun = (r: ModelRunRow): ModelRun => ({
  id: r.id,
  experiment_id: r.experiment_id,
  status: r.status,
  trigger: r.trigger,
  created_at: iso(r.created_at),
  started_at: isoOrNull(r.started_at),
  finished_at: isoOrNull(r.finished_at),
  interactions: numOrNull(r.interactions),
  users: numOrNull(r.users),
  videos: numOrNull(r.videos),
  watermark: isoOrNull(r.watermark),
  metrics: json<ModelRun["metrics"]>(r.metrics, null),
  skipped_reason: r.skipped_reason,
  error: r.error,
});

/**
 * The API side of training: requests a run (the leading trainer takes queued runs within its poll
 * interval, in this process or another) and lists an experiment's runs.
 */
export function createTrainingService({ db, newId, now }: ServiceDeps) {
  return {
    /**
     * Queues a manual run, which trains even when nothing changed since the last model. A run of the
     * experiment that is already queued is answered instead of queueing a second one.
     */
    async requestRun(experimentId: string): Promise<{ run_id: string }> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      return { run_id: await queueRun(db, experimentId, newId, now()) };
    },

    /** The experiment's runs, newest first. */
    async list(experimentId: string, limit: number): Promise<ModelRun[]> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const rows = await listRuns(db, experimentId, limit);
      return rows.map(presentModelRun);
    },
  };
}

export type TrainingService = ReturnType<typeof createTrainingService>;
