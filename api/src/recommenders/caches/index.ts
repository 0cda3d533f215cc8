import type { Db } from "@feedlab/sql";
import type { ChangeBus } from "../../changes/change-bus.ts";
import type { Pool } from "../pool.ts";
import { createCoViewsCache } from "./co-views.ts";
import { createLearnedRankingCache } from "./learned-ranking.ts";
import { createLearnedSimilarCache } from "./learned-similar.ts";
import { createPopularityCache } from "./popularity.ts";
import { createWatchedCache } from "./watched.ts";

export interface CacheOptions {
  readonly db: Db;
  readonly bus: ChangeBus;
  /**
   * How old a popularity order may be before it is recomputed in the background while the old one
   * keeps serving (default 5 s). Play counts are an aggregate of everyone's events; the participant's
   * own writes matter for the watched exclusion, which is always read fresh.
   */
  readonly popularityRefreshMs?: number;
  /**
   * Age after which a video's co-views and learned neighbours are re-read in the background while
   * the old ones keep serving (default 60 s). Only a video never asked for waits for its read. The
   * trainer's output is dropped at once when it announces a new model (a `model` change).
   */
  readonly neighbourRefreshMs?: number;
  readonly now?: () => number;
}

/**
 * The caches of the read models recommenders use, one each, each read by key through an index (never a
 * scan of the events) and through its read model's queries: `watched_videos` (exclusion),
 * `video_view_counts` (popularity), `co_views` (similarity), and the trainer's `recommendation_cache`
 * and `item_similarity` (learned model). The read models themselves live in the projector (and the
 * trainer); this folder holds only what the API keeps of them in memory. Video ids in these tables
 * are external ids; answers are pool indices.
 */
export function createCaches(options: CacheOptions) {
  const { db, bus } = options;
  const now = options.now ?? Date.now;
  const refreshMs = options.neighbourRefreshMs ?? 60_000;
  const watched = createWatchedCache({ db, bus });
  const popularity = createPopularityCache({ db, bus, refreshMs: options.popularityRefreshMs ?? 5000, now });
  const coViews = createCoViewsCache({ db, bus, refreshMs, now });
  const learnedSimilar = createLearnedSimilarCache({ db, bus, refreshMs, now });
  const learnedRanking = createLearnedRankingCache({ db, bus, refreshMs, now });

  return {
    /**
     * Reads the co-views (`coViews`) or learned neighbours (`learned`) of every pool video ahead of
     * the requests that need them (a recommender calls this when it first serves a pool). Resolves
     * when done; a second call for the same pool and data resolves at once.
     */
    warm(pool: Pool, kind: "coViews" | "learned"): Promise<void> {
      return kind === "coViews" ? coViews.warm(pool) : learnedSimilar.warm(pool);
    },
    watched: watched.watched,
    followWatched: watched.followWatched,
    popularity: popularity.popularity,
    coViews: coViews.coViews,
    learnedRanking: learnedRanking.learnedRanking,
    learnedSimilar: learnedSimilar.learnedSimilar,
  };
}

export type Caches = ReturnType<typeof createCaches>;
