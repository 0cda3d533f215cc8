import { learnedNeighbours } from "@feedlab/trainer";
import { RefreshingCache } from "../../system/refreshing-cache.ts";
import type { Pool } from "../pool.ts";
import { indicesOf, keyOf, perVideo, REFRESH_BATCH_MS, type ReadModelCacheOptions } from "./keys.ts";
import { createPoolWarmer } from "./warm.ts";

/** How many learned neighbours of a video are read. */
const LEARNED_NEIGHBOURS_KEPT = 1000;

/**
 * The trainer's item-to-item neighbours of videos (`item_similarity`), best first, kept per video
 * and re-read in the background once older than `refreshMs`; a new model (`model`) or a `resync`
 * drops them.
 */
export function createLearnedSimilarCache(options: ReadModelCacheOptions) {
  const { db, bus, refreshMs, now } = options;
  const cache = new RefreshingCache<readonly string[]>(
    (keys) =>
      perVideo(keys, (experimentId, ids) =>
        learnedNeighbours(db, experimentId, ids, LEARNED_NEIGHBOURS_KEPT),
      ),
    { fallback: [], refreshMs, max: 50_000, now, refreshBatchMs: REFRESH_BATCH_MS },
  );
  const warmer = createPoolWarmer((keys) => cache.getMany(keys));

  bus.subscribe((change) => {
    if (change.type === "resync" || change.type === "model") {
      cache.clear();
      warmer.reset();
    }
  });

  return {
    /** Reads the learned neighbours of every pool video ahead of the requests that need them. */
    warm(pool: Pool): Promise<void> {
      return warmer.warm(pool);
    },

    /** The trainer's item-to-item neighbours of a video (item_similarity), best first, as pool indices. */
    async learnedSimilar(pool: Pool, index: number): Promise<number[]> {
      const externalId = pool.videos[index]?.external_id;
      if (externalId === undefined) return [];
      return indicesOf(pool, await cache.get(keyOf(pool.experimentId, externalId)));
    },
  };
}
