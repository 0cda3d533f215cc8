import { idsOf, pageOfChain, type Recommender } from "../recommender.ts";

/** Built-in `recency`: newest first by publication date (unknown dates last), then newest added. */
export function createRecencyRecommender(): Recommender {
  return {
    key: "recency",
    async recommend(request) {
      return idsOf(request.pool, pageOfChain(request, [request.pool.recency]));
    },
  };
}
