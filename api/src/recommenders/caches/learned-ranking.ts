import { learnedRanking } from "@feedlab/trainer";
import { RefreshingCache } from "../../system/refreshing-cache.ts";
import type { Pool } from "../pool.ts";
import { indicesOf, keyOf, type ReadModelCacheOptions, split } from "./keys.ts";

/**
 * The trainer's collaborative-filtering ranking of participants (`recommendation_cache`), by rank,
 * kept per participant and re-read in the background once older than `refreshMs`; a new model
 * (`model`) or a `resync` drops them.
 */
export function createLearnedRankingCache(options: ReadModelCacheOptions) {
  const { db, bus, refreshMs, now } = options;
  const cache = new RefreshingCache<readonly string[]>(
    async (keys) => {
      const out = new Map<string, readonly string[]>();
      for (const key of keys) {
        const [experimentId, userId] = split(key);
        out.set(key, await learnedRanking(db, experimentId, userId));
      }
      return out;
    },
    { fallback: [], refreshMs, max: 100_000, now },
  );

  bus.subscribe((change) => {
    if (change.type === "resync" || change.type === "model") cache.clear();
  });

  return {
    /**
     * The trainer's collaborative-filtering ranking of the participant (recommendation_cache), as
     * pool indices. Kept per participant like the neighbours; a `model` change drops it.
     */
    async learnedRanking(pool: Pool, userId: string): Promise<number[]> {
      return indicesOf(pool, await cache.get(keyOf(pool.experimentId, userId)));
    },
  };
}
