import type { Knex } from "knex";
import type { Logger } from "pino";
import { extractTrainingData, readFreshness, type TrainingSource } from "./extract.ts";
import { type MetadataNeighbours, poolMetadata } from "./metadata/pool-metadata.ts";
import { type ModelMetrics, type PipelineResult, runPipeline, type TrainingConfig } from "./pipeline.ts";
import { INTERRUPTED, type RunRef, type RunStatus } from "./runs.ts";
import type { MetadataNeighbour } from "./similarity.ts";
import { step, type Timings } from "./steps.ts";

/** Looks up the metadata similarity of an experiment's pool; null for none. */
type MetadataSource = (experimentId: string) => Promise<MetadataNeighbours | null>;

export interface RunnerDeps {
  readonly db: Knex;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly config: TrainingConfig;
  readonly metadata?: MetadataSource;
  /** Called once a run's output is committed: announce the new model to the API processes. */
  readonly onModel?: (experimentId: string) => Promise<void> | void;
}

/** Rows per insert statement of the output. */
const WRITE_CHUNK = 5000;

const round = (x: number, digits = 6) => Number(x.toPrecision(digits));

/** Skip reasons, written for the console. */
const SKIP = {
  noInteractions:
    "No interactions yet: the model learns from VIDEO_WATCHED_1S, LIKE and VIDEO_ENDED (above half) events of this experiment's participants.",
  emptyPool: "The experiment's video pool is empty: there is nothing to recommend.",
  notFresh: (watermark: string | null) =>
    `No new VIDEO_WATCHED_1S, LIKE or VIDEO_ENDED since the last model${watermark ? ` (trained on interactions received up to ${new Date(watermark).toISOString()})` : ""}.`,
} as const;

/**
 * One model run, already recorded as `running`: freshness (scheduled runs only) -> extract -> train
 * and evaluate -> write the output and the run record in one transaction -> announce. Every outcome
 * is recorded on the run: succeeded with metrics, skipped with a reason, or failed with the error.
 */
export async function executeRun(deps: RunnerDeps, run: RunRef, signal?: AbortSignal): Promise<RunStatus> {
  const { db, now } = deps;
  const logger = deps.logger.child({ run_id: run.id, experiment_id: run.experimentId, trigger: run.trigger });
  const timings: Timings = {};
  const started = performance.now();
  const finish = (fields: Record<string, unknown>, trx: Knex = db) =>
    trx("model_runs")
      .where({ id: run.id })
      .update({ finished_at: now(), ...fields });
  try {
    logger.info("model run started");
    // 1. Freshness: a scheduled run trains only when the training data changed since the last model.
    const fresh = await step(logger, timings, "freshness", () => readFreshness(db, run.experimentId));
    const sizes = {
      interactions: fresh.interactions,
      watermark: fresh.watermark,
      source_events: fresh.events,
    };
    if (fresh.interactions === 0) return await skip(SKIP.noInteractions, sizes);
    if (run.trigger === "schedule" && !fresh.fresh)
      return await skip(SKIP.notFresh(fresh.lastWatermark), sizes);

    // 2. Extract the experiment's interactions, pool and co-views.
    const source = await step(logger, timings, "extract", () => extractTrainingData(db, run.experimentId));
    const shape = {
      interactions: source.interactions.user.length,
      users: source.interactions.users,
      videos: source.interactions.items,
    };
    logger.info(shape, "training data extracted");
    if (source.interactions.user.length === 0) return await skip(SKIP.noInteractions, sizes);
    if (!source.pool.includes(1)) return await skip(SKIP.emptyPool, { ...sizes, ...shape });
    const metadata = await step(logger, timings, "metadata", () =>
      metadataFor(deps, run.experimentId, source),
    );

    // 3. Train, evaluate, rank, relate.
    const result = await runPipeline(source, deps.config, { logger, signal, timings, metadata });
    signal?.throwIfAborted();

    // 4. Swap: the experiment's output and the run record in one transaction (readers keep the
    //    previous model until it commits), then announce the new model.
    const counts = await db.transaction(async (trx) => {
      const writeStarted = performance.now();
      const written = await writeOutputs(trx, run, source, result, now());
      timings.write = Math.round((performance.now() - writeStarted) * 10) / 10;
      timings.total = Math.round(performance.now() - started);
      logger.info({ step: "write", ms: timings.write, ...written }, `write done in ${timings.write} ms`);
      await finish(
        {
          status: "succeeded",
          ...sizes,
          ...shape,
          metrics: JSON.stringify(metricsOf(deps.config, result, written, timings)),
        },
        trx,
      );
      return written;
    });
    try {
      await deps.onModel?.(run.experimentId);
    } catch (err) {
      // The model is stored; API processes pick it up within their refresh interval anyway.
      logger.warn({ err }, "could not announce the new model");
    }
    logger.info({ ...counts, ms: Math.round(performance.now() - started) }, "model run succeeded");
    return "succeeded";
  } catch (err) {
    const interrupted = signal?.aborted === true;
    if (interrupted) logger.warn("model run interrupted");
    else logger.error({ err }, "model run failed");
    await finish({
      status: "failed",
      error: interrupted ? INTERRUPTED : err instanceof Error ? err.message : String(err),
    }).catch((e) => logger.error({ err: e }, "could not record the failed run"));
    return "failed";
  }

  /**
   * Records the skip. A scheduled skip replaces the experiment's earlier scheduled skips, so an idle
   * experiment keeps one row saying why it is not training, not one per interval; the schedule's
   * rhythm reads this newest row.
   */
  async function skip(reason: string, fields: Record<string, unknown>): Promise<RunStatus> {
    await db.transaction(async (trx) => {
      await finish({ status: "skipped", skipped_reason: reason, ...fields }, trx);
      if (run.trigger === "schedule") {
        await trx("model_runs")
          .where({ experiment_id: run.experimentId, trigger: "schedule", status: "skipped" })
          .whereNot({ id: run.id })
          .delete();
      }
    });
    logger.info({ reason }, "model run skipped");
    return "skipped";
  }
}

/** Maps the pool's metadata neighbours (indices of its own list) onto the run's video indices. */
async function metadataFor(
  deps: RunnerDeps,
  experimentId: string,
  source: TrainingSource,
): Promise<((item: number) => readonly MetadataNeighbour[]) | undefined> {
  const found = await (deps.metadata ?? ((id: string) => poolMetadata(deps.db, id)))(experimentId);
  if (!found) return undefined;
  const toRun = new Map(source.videoIds.map((id, i) => [id, i]));
  const fromRun = new Map<number, number>();
  found.externalIds.forEach((id, index) => {
    const i = toRun.get(id);
    if (i !== undefined) fromRun.set(i, index);
  });
  const toRunIndex = found.externalIds.map((id) => toRun.get(id) ?? -1);
  return (item) => {
    const index = fromRun.get(item);
    if (index === undefined) return [];
    return found
      .neighbours(index)
      .map((n) => ({ index: toRunIndex[n.index] ?? -1, score: n.score }))
      .filter((n) => n.index >= 0);
  };
}

/**
 * Replaces the rankings of the experiment's real participants (or, with `simulated`, of its simulated
 * ones: their model is their own) with a run's; the other kind's rows stay.
 */
export async function writeRecommendations(
  trx: Knex,
  target: { readonly experimentId: string; readonly runId: string | null; readonly simulated: boolean },
  source: TrainingSource,
  result: PipelineResult,
  at: Date,
): Promise<number> {
  await trx("recommendation_cache")
    .where({ experiment_id: target.experimentId })
    .whereIn(
      "user_id",
      trx("users").where({ experiment_id: target.experimentId, simulated: target.simulated }).select("id"),
    )
    .delete();
  const { recommendations: rec } = result;
  let recommendations = 0;
  let rows: unknown[][] = [];
  const flushRecommendations = async () => {
    if (rows.length === 0) return;
    // Joined with users: a participant deleted meanwhile is left out rather than failing the run.
    await trx.raw(
      `insert into recommendation_cache (experiment_id, user_id, video_id, rank, score, model_run_id, created_at)
       select ?, u.id, e->>1, (e->>2)::int, (e->>3)::float8, ?, ?
       from json_array_elements(?::json) e join users u on u.id = (e->>0)::uuid`,
      [target.experimentId, target.runId, at, JSON.stringify(rows)],
    );
    recommendations += rows.length;
    rows = [];
  };
  for (let pos = 0; pos < rec.queries.length; pos++) {
    const userId = source.userIds[rec.queries[pos] as number];
    for (let r = 0; r < rec.K; r++) {
      const i = rec.indices[pos * rec.K + r] as number;
      if (i < 0 || userId === undefined) break;
      rows.push([userId, source.videoIds[i], r + 1, round(rec.scores[pos * rec.K + r] as number)]);
    }
    if (rows.length >= WRITE_CHUNK) await flushRecommendations();
  }
  await flushRecommendations();
  return recommendations;
}

/** Replaces the experiment's recommendation_cache and item_similarity rows with the run's output. */
async function writeOutputs(
  trx: Knex,
  run: RunRef,
  source: TrainingSource,
  result: PipelineResult,
  at: Date,
): Promise<{ recommendations: number; similarities: number }> {
  await trx("item_similarity").where({ experiment_id: run.experimentId }).delete();
  const recommendations = await writeRecommendations(
    trx,
    { experimentId: run.experimentId, runId: run.id, simulated: false },
    source,
    result,
    at,
  );
  const { neighbours } = result;
  let rows: unknown[][] = [];
  let similarities = 0;
  const flushSimilarities = async () => {
    if (rows.length === 0) return;
    await trx.raw(
      `insert into item_similarity (experiment_id, video_id, other_video_id, score, model_run_id, created_at)
       select ?, e->>0, e->>1, (e->>2)::float8, ?, ? from json_array_elements(?::json) e`,
      [run.experimentId, run.id, at, JSON.stringify(rows)],
    );
    similarities += rows.length;
    rows = [];
  };
  for (let i = 0; i < source.videoIds.length; i++) {
    for (let q = neighbours.indptr[i] as number; q < (neighbours.indptr[i + 1] as number); q++) {
      rows.push([
        source.videoIds[i],
        source.videoIds[neighbours.indices[q] as number],
        round(neighbours.scores[q] as number),
      ]);
    }
    if (rows.length >= WRITE_CHUNK) await flushSimilarities();
  }
  await flushSimilarities();
  return { recommendations, similarities };
}

function metricsOf(
  config: TrainingConfig,
  result: PipelineResult,
  written: { recommendations: number; similarities: number },
  timings: Timings,
): ModelMetrics {
  const e = result.evaluation;
  return {
    recall_at_10: e ? round(e.recall_at_10, 4) : null,
    ndcg_at_10: e ? round(e.ndcg_at_10, 4) : null,
    baseline_recall_at_10: e ? round(e.baseline_recall_at_10, 4) : null,
    baseline_ndcg_at_10: e ? round(e.baseline_ndcg_at_10, 4) : null,
    test_users: e?.test_users ?? 0,
    eligible_users: e?.eligible ?? 0,
    train_interactions: e?.trainInteractions ?? 0,
    factors: config.als.factors,
    iterations: config.als.iterations,
    regularization: config.als.regularization,
    alpha: config.als.alpha,
    seed: config.als.seed,
    workers: result.workers,
    recommendations: written.recommendations,
    similarities: written.similarities,
    ...(e
      ? {}
      : {
          evaluation_note:
            "Not evaluated: no participant has two or more interactions whose latest is a pool video, so there is nothing to hold out.",
        }),
    timings_ms: timings,
  };
}
