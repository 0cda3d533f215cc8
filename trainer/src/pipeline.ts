import type { Logger } from "pino";
import { type AlsConfig, DEFAULT_ALS_CONFIG, train } from "./als/als.ts";
import { weightMatrix } from "./data.ts";
import { type Evaluation, evaluate, leaveLastOut } from "./evaluate.ts";
import type { TrainingSource } from "./extract.ts";
import { type ComputePool, createComputePool, defaultWorkers } from "./parallel/pool.ts";
import { type TopLists, topByDot } from "./rank.ts";
import {
  DEFAULT_SIMILARITY_CONFIG,
  itemSimilarity,
  type MetadataNeighbour,
  type NeighbourLists,
  type SimilarityConfig,
} from "./similarity.ts";
import { checkAborted, step, type Timings } from "./steps.ts";

/** Everything a training run is configured with. */
export interface TrainingConfig {
  readonly als: AlsConfig;
  readonly similarity: SimilarityConfig;
  /** Ranked videos stored per participant in recommendation_cache. */
  readonly recommendations: number;
  /** Test participants of the offline evaluation, at most (a seeded sample beyond). */
  readonly maxTestUsers: number;
  /** Worker threads for large runs (default: one per core). */
  readonly workers: number;
  /**
   * Runs with fewer interactions train in the calling thread (starting workers would cost more than
   * they save); larger ones in workers, which also keeps the HTTP server's thread free in one-process
   * deployments.
   */
  readonly parallelMinInteractions: number;
}

export const DEFAULT_TRAINING_CONFIG: TrainingConfig = Object.freeze({
  als: DEFAULT_ALS_CONFIG,
  similarity: DEFAULT_SIMILARITY_CONFIG,
  recommendations: 100,
  maxTestUsers: 10_000,
  workers: defaultWorkers(),
  parallelMinInteractions: 2_000,
});

/** Offline metrics (null when nobody could be tested) and what the run was made of. */
export interface ModelMetrics {
  readonly recall_at_10: number | null;
  readonly ndcg_at_10: number | null;
  readonly baseline_recall_at_10: number | null;
  readonly baseline_ndcg_at_10: number | null;
  /** Participants tested (held-out latest interaction) and participants who could have been. */
  readonly test_users: number;
  readonly eligible_users: number;
  readonly train_interactions: number;
  readonly factors: number;
  readonly iterations: number;
  readonly regularization: number;
  readonly alpha: number;
  readonly seed: number;
  readonly workers: number;
  /** Rows written: recommendation_cache and item_similarity. */
  readonly recommendations: number;
  readonly similarities: number;
  /** Set when the evaluation could not run, saying why. */
  readonly evaluation_note?: string;
  /** Duration of each step, in ms. */
  readonly timings_ms: Timings;
}

export interface PipelineResult {
  readonly evaluation:
    | (Evaluation & { readonly eligible: number; readonly trainInteractions: number })
    | null;
  /** Per participant (all of them, in order) their top videos, -1 padded. */
  readonly recommendations: TopLists;
  readonly neighbours: NeighbourLists;
  readonly workers: number;
}

/**
 * From training data to model output, each step logged with its timing:
 * 1. leave-last-out split; 2. ALS on the training part; 3. recall@10 and NDCG@10 against the
 * popularity baseline on the same split; 4. ALS on all interactions (the model served);
 * 5. each participant's top videos (their own interactions left out, pool videos only);
 * 6. item-to-item similarity (factors blended with co-views and metadata).
 */
export async function runPipeline(
  source: TrainingSource,
  config: TrainingConfig,
  options: {
    readonly logger?: Logger;
    readonly signal?: AbortSignal;
    readonly timings: Timings;
    readonly metadata?: (item: number) => readonly MetadataNeighbour[];
  },
): Promise<PipelineResult> {
  const { logger, signal, timings } = options;
  const data = source.interactions;
  const workers = data.user.length >= config.parallelMinInteractions ? config.workers : 0;
  const pool: ComputePool = createComputePool(workers);
  try {
    // 1-3. Offline evaluation on a leave-last-out split.
    const split = await step(logger, timings, "split", () =>
      leaveLastOut(data, {
        candidates: source.pool,
        maxTestUsers: config.maxTestUsers,
        seed: config.als.seed,
      }),
    );
    let evaluation: PipelineResult["evaluation"] = null;
    if (split.testUsers.length > 0) {
      const heldOut = await step(logger, timings, "train_evaluation_model", () =>
        train(split.train, config.als, { pool, signal, logger: logger?.child({ model: "held_out" }) }),
      );
      checkAborted(signal);
      const result = await step(logger, timings, "evaluate", () =>
        evaluate(heldOut, split, source.pool, pool),
      );
      evaluation = { ...result, eligible: split.eligible, trainInteractions: split.train.indices.length };
    }
    checkAborted(signal);
    // 4. The model served: all interactions.
    const all = weightMatrix(data);
    const model = await step(logger, timings, "train", () =>
      train(all, config.als, { pool, signal, logger: logger?.child({ model: "served" }) }),
    );
    checkAborted(signal);
    // 5. Top videos per participant.
    const recommendations = await step(logger, timings, "recommend", () =>
      topByDot(pool, {
        Q: model.userFactors,
        T: model.itemFactors,
        targets: model.items,
        k: model.factors,
        K: Math.max(1, Math.min(config.recommendations, source.videoIds.length)),
        queries: Int32Array.from({ length: model.users }, (_, u) => u),
        exclude: all,
        mask: source.pool,
      }),
    );
    checkAborted(signal);
    // 6. Item-to-item similarity.
    const support = new Int32Array(model.items);
    for (let q = 0; q < all.indices.length; q++)
      support[all.indices[q] as number] = (support[all.indices[q] as number] as number) + 1;
    const neighbours = await step(logger, timings, "similarity", () =>
      itemSimilarity(
        {
          itemFactors: model.itemFactors,
          items: model.items,
          k: model.factors,
          support,
          coViews: source.coViews,
          metadata: options.metadata,
          mask: source.pool,
        },
        config.similarity,
        pool,
      ),
    );
    return { evaluation, recommendations, neighbours, workers };
  } finally {
    await pool.close();
  }
}
