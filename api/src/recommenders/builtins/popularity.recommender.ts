import type { Caches } from "../caches/index.ts";
import { idsOf, pageOfChain, type Recommender } from "../recommender.ts";

/**
 * Built-in `popularity`: most played first, by this experiment's VIDEO_PLAY counts (autoplay
 * included by design, spec: "Backend consumers of events"); equal counts newest first.
 */
export function createPopularityRecommender(caches: Caches): Recommender {
  return {
    key: "popularity",
    async recommend(request) {
      const { order } = await caches.popularity(request.pool);
      return idsOf(request.pool, pageOfChain(request, [order]));
    },
  };
}
