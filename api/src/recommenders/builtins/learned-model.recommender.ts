import type { Caches } from "../caches/index.ts";
import { idsOf, pageOfChain, type Recommender } from "../recommender.ts";

/**
 * Built-in `learned_model`: what the trainer stored, with the spec's fallback chains.
 * - Feed: the participant's collaborative-filtering ranking (recommendation_cache), then the played
 *   videos by popularity, then the rest by recency.
 * - Watch: the current video's learned neighbours (item_similarity), then popularity.
 * Until a model exists (or for a participant it has no row for) the chain starts at the fallback.
 */
export function createLearnedModelRecommender(caches: Caches): Recommender {
  return {
    key: "learned_model",
    warm: (pool) => caches.warm(pool, "learned"),
    async recommend(request) {
      const { pool, current } = request;
      if (current) {
        // Every video's neighbours are read ahead, a batch a round trip, once per pool and model.
        caches.warm(pool, "learned").catch(() => {});
        const [similar, { order }] = await Promise.all([
          caches.learnedSimilar(pool, current.index),
          caches.popularity(pool),
        ]);
        return idsOf(pool, pageOfChain(request, [similar, order]));
      }
      const [ranked, { order, played }] = await Promise.all([
        caches.learnedRanking(pool, request.userId),
        caches.popularity(pool),
      ]);
      return idsOf(pool, pageOfChain(request, [ranked, order.subarray(0, played), pool.recency]));
    },
  };
}
