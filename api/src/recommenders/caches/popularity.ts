import { parsePlayCounts, playCountsText } from "@feedlab/projector";
import type { Pool } from "../pool.ts";
import type { ReadModelCacheOptions } from "./keys.ts";

/** Popularity of a pool: indices by VIDEO_PLAY count (descending), ties newest first. */
export interface PopularityOrder {
  readonly order: Int32Array;
  /** How many leading entries of `order` were played at least once. */
  readonly played: number;
}

interface PopularityEntry {
  version: number;
  value?: PopularityOrder;
  /** The play counts' text `value` was computed from. */
  counts?: string;
  at: number;
  loading?: Promise<PopularityOrder>;
}

/**
 * Pool indices by play count (descending), equal counts in `recency` order (newest first). One sort
 * of numbers, without a comparator: each video's key is its count's rank from the top, times the
 * pool's size, plus its recency rank (exact while the largest count times the size stays under
 * 2^53). Exported for tests.
 */
export function popularityOrder(recency: Int32Array, plays: Float64Array): PopularityOrder {
  const n = recency.length;
  let max = 0;
  for (let i = 0; i < plays.length; i++) max = Math.max(max, plays[i] as number);
  const keys = new Float64Array(n);
  for (let r = 0; r < n; r++) keys[r] = (max - (plays[recency[r] as number] as number)) * n + r;
  keys.sort();
  const order = new Int32Array(n);
  let played = 0;
  for (let k = 0; k < n; k++) {
    const i = recency[(keys[k] as number) % n] as number;
    order[k] = i;
    if ((plays[i] as number) > 0) played = k + 1;
  }
  return { order, played };
}

/**
 * Each experiment's popularity order (`video_view_counts`), one per experiment and pool version,
 * recomputed in the background once older than `refreshMs` while the old one keeps serving; a
 * `resync` drops them.
 */
export function createPopularityCache(options: ReadModelCacheOptions) {
  const { db, bus, refreshMs, now } = options;
  const byExperiment = new Map<string, PopularityEntry>();

  bus.subscribe((change) => {
    if (change.type === "resync") byExperiment.clear();
  });

  /**
   * The pool's popularity order with the play counts' text it comes from; the order held when the
   * counts read are the same.
   */
  async function compute(
    pool: Pool,
    held: PopularityEntry,
  ): Promise<{ value: PopularityOrder; counts: string }> {
    const counts = await playCountsText(db, pool.experimentId);
    if (held.value && held.counts === counts) return { value: held.value, counts };
    const plays = new Float64Array(pool.size);
    for (const [videoId, count] of parsePlayCounts(counts)) {
      const i = pool.indexByExternalId.get(videoId);
      if (i !== undefined) plays[i] = count;
    }
    return { value: popularityOrder(pool.recency, plays), counts };
  }

  return {
    /** The pool by play count in this experiment (every VIDEO_PLAY, autoplay included), ties newest first. */
    popularity(pool: Pool): Promise<PopularityOrder> {
      let entry = byExperiment.get(pool.experimentId);
      if (!entry || entry.version !== pool.version) {
        entry = { version: pool.version, at: 0 };
        byExperiment.set(pool.experimentId, entry);
      }
      const e = entry;
      const refresh = () => {
        const loading = compute(pool, e).then(
          ({ value, counts }) => {
            e.value = value;
            e.counts = counts;
            e.at = now();
            e.loading = undefined;
            return value;
          },
          (err) => {
            e.loading = undefined;
            throw err;
          },
        );
        e.loading = loading;
        return loading;
      };
      if (e.value) {
        if (now() - e.at > refreshMs && !e.loading) refresh().catch(() => {});
        return Promise.resolve(e.value);
      }
      return e.loading ?? refresh();
    },
  };
}
