import { topCoViewed } from "@feedlab/projector";
import { RefreshingCache } from "../../system/refreshing-cache.ts";
import type { Pool } from "../pool.ts";
import { keyOf, perVideo, REFRESH_BATCH_MS, type ReadModelCacheOptions } from "./keys.ts";
import { createPoolWarmer } from "./warm.ts";

/** How many co-viewed partners of a video are read (the most co-viewed ones). */
const CO_VIEWS_KEPT = 50;

type Partners = readonly (readonly [string, number])[];

/** Whether two lists of (video, count) pairs are the same, in the same order. */
const samePairs = (a: Partners, b: Partners) =>
  a.length === b.length && a.every(([id, n], i) => b[i]?.[0] === id && b[i]?.[1] === n);

/**
 * Videos' most co-viewed partners (`co_views`), kept per video and re-read in the background once
 * older than `refreshMs`; a `resync` drops them.
 */
export function createCoViewsCache(options: ReadModelCacheOptions) {
  const { db, bus, refreshMs, now } = options;
  /** Top-N through an index on each side of the pair (a < b). */
  const cache = new RefreshingCache<Partners>(
    (keys) =>
      perVideo(keys, async (experimentId, ids) => {
        const partners = await topCoViewed(db, experimentId, ids, CO_VIEWS_KEPT);
        return new Map([...partners].map(([id, list]) => [id, list.slice(0, CO_VIEWS_KEPT)]));
      }),
    // Unchanged co-views keep their array: the similarity built-in's blends made from it stay valid.
    { fallback: [], refreshMs, max: 50_000, now, equal: samePairs, refreshBatchMs: REFRESH_BATCH_MS },
  );
  const warmer = createPoolWarmer((keys) => cache.getMany(keys));

  bus.subscribe((change) => {
    if (change.type === "resync") {
      cache.clear();
      warmer.reset();
    }
  });

  return {
    /** Reads the co-views of every pool video ahead of the requests that need them. */
    warm(pool: Pool): Promise<void> {
      return warmer.warm(pool);
    },

    /**
     * The videos' most co-viewed partners (pairs watched by the same participant) with their counts,
     * by external id, at most CO_VIEWS_KEPT each, most co-viewed first; one round trip for the batch.
     */
    coViews(experimentId: string, externalIds: readonly string[]): Promise<Partners[]> {
      return cache.getMany(externalIds.map((id) => keyOf(experimentId, id)));
    },
  };
}
