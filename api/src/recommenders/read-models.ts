import { parsePlayCounts, playCountsText, topCoViewed, watchedVideoIds } from "@feedlab/projector";
import { type LoggedEvent, WATCHED_TYPES } from "@feedlab/schemas";
import { learnedNeighbours, learnedRanking } from "@feedlab/trainer";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { Db } from "../db/db.ts";
import { RefreshingCache } from "../system/refreshing-cache.ts";
import type { Pool } from "./pool.ts";

/** How many co-viewed partners of a video are read (the most co-viewed ones). */
export const CO_VIEWS_KEPT = 50;
/** How many learned neighbours of a video are read. */
const LEARNED_NEIGHBOURS_KEPT = 1000;
/** Videos whose co-views or learned neighbours one round trip of a warm-up reads. */
export const WARM_BATCH = 100;
/**
 * How long a video's stale neighbours (answered meanwhile) wait for others to be read with them: a
 * watch page's video refreshes once a minute, and at hundreds of pages a second one round trip per
 * turn of the event loop would mean one per page.
 */
const REFRESH_BATCH_MS = 100;

/** Popularity of a pool: indices by VIDEO_PLAY count (descending), ties newest first. */
export interface PopularityOrder {
  readonly order: Int32Array;
  /** How many leading entries of `order` were played at least once. */
  readonly played: number;
}

export interface ReadModelOptions {
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

/** Whether two lists of (video, count) pairs are the same, in the same order. */
const samePairs = (a: readonly (readonly [string, number])[], b: readonly (readonly [string, number])[]) =>
  a.length === b.length && a.every(([id, n], i) => b[i]?.[0] === id && b[i]?.[1] === n);

const keyOf = (experimentId: string, externalId: string) => `${experimentId}\u0000${externalId}`;
const split = (key: string) => key.split("\u0000") as [string, string];

/**
 * The read models recommenders use, each read by key through an index (never a scan of the events):
 * `watched_videos` (exclusion), `video_view_counts` (popularity), `co_views` (similarity), and the
 * trainer's `recommendation_cache` and `item_similarity` (learned model). Video ids in these tables
 * are external ids; answers are pool indices.
 */
export function createReadModels(options: ReadModelOptions) {
  const { db, bus } = options;
  const now = options.now ?? Date.now;
  const popularityRefreshMs = options.popularityRefreshMs ?? 5000;
  const refreshMs = options.neighbourRefreshMs ?? 60_000;
  const popularityByExperiment = new Map<string, PopularityEntry>();

  /** Keys `experiment\0id` grouped by experiment (one query per experiment and batch). */
  const byExperiment = (keys: readonly string[]) => {
    const groups = new Map<string, string[]>();
    for (const key of keys) {
      const [experimentId, id] = split(key);
      groups.set(experimentId, [...(groups.get(experimentId) ?? []), id]);
    }
    return groups;
  };

  /** Per experiment of a batch of keys, one query for its videos: `read` answers by video id. */
  async function perVideo<V>(
    keys: readonly string[],
    read: (experimentId: string, ids: readonly string[]) => Promise<ReadonlyMap<string, V>>,
  ): Promise<Map<string, V>> {
    const out = new Map<string, V>();
    for (const [experimentId, ids] of byExperiment(keys)) {
      for (const [id, value] of await read(experimentId, ids)) out.set(keyOf(experimentId, id), value);
    }
    return out;
  }

  /** A video's most co-viewed partners: top-N through an index on each side of the pair (a < b). */
  const coViewCache = new RefreshingCache<readonly (readonly [string, number])[]>(
    (keys) =>
      perVideo(keys, async (experimentId, ids) => {
        const partners = await topCoViewed(db, experimentId, ids, CO_VIEWS_KEPT);
        return new Map([...partners].map(([id, list]) => [id, list.slice(0, CO_VIEWS_KEPT)]));
      }),
    // Unchanged co-views keep their array: the similarity built-in's blends made from it stay valid.
    { fallback: [], refreshMs, max: 50_000, now, equal: samePairs, refreshBatchMs: REFRESH_BATCH_MS },
  );

  /** The trainer's neighbours of a video (item_similarity), best first. */
  const learnedSimilarCache = new RefreshingCache<readonly string[]>(
    (keys) =>
      perVideo(keys, (experimentId, ids) =>
        learnedNeighbours(db, experimentId, ids, LEARNED_NEIGHBOURS_KEPT),
      ),
    { fallback: [], refreshMs, max: 50_000, now, refreshBatchMs: REFRESH_BATCH_MS },
  );

  /** The trainer's collaborative-filtering ranking of a participant (recommendation_cache), by rank. */
  const learnedRankingCache = new RefreshingCache<readonly string[]>(
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

  /** Pools whose videos' co-views / learned neighbours were loaded ahead (per cache generation). */
  const warmed = { coViews: new WeakMap<Pool, number>(), learned: new WeakMap<Pool, number>() };
  const generation = { coViews: 0, learned: 0 };

  /**
   * Watched history per participant (external ids), kept only while `followWatched` tells this
   * process of every change to it; `watchedChangedAt` is bumped by each change so that a read in flight
   * across one is answered but not kept.
   */
  const watchedCache = new Map<string, readonly string[]>();
  const watchedChangedAt = new Map<string, number>();
  let watchedChanges = 0;
  /** Bumped whenever watchedChangedAt loses entries: reads begun before are not kept. */
  let watchedClears = 0;
  let watchedFollowed = false;
  const WATCHED_KEPT = 100_000;
  const clearWatched = () => {
    watchedCache.clear();
    watchedChangedAt.clear();
    watchedClears++;
  };
  const forgetWatched = (userId: string) => {
    watchedCache.delete(userId);
    if (watchedChangedAt.size >= WATCHED_KEPT) clearWatched();
    watchedChangedAt.set(userId, ++watchedChanges);
  };

  bus.subscribe((change) => {
    if (change.type === "resync" || change.type === "participants_erased") clearWatched();
    if (change.type === "resync") {
      popularityByExperiment.clear();
      coViewCache.clear();
      generation.coViews++;
    }
    if (change.type === "resync" || change.type === "model") {
      learnedSimilarCache.clear();
      learnedRankingCache.clear();
      generation.learned++;
    }
  });

  /**
   * Loads `kind` for every video of the pool into its cache, WARM_BATCH videos a round trip, one
   * after the other (requests' own reads queue between them), once per pool and cache generation.
   */
  function warm(pool: Pool, kind: "coViews" | "learned"): Promise<void> {
    if (warmed[kind].get(pool) === generation[kind]) return Promise.resolve();
    warmed[kind].set(pool, generation[kind]);
    const load = (keys: string[]) =>
      kind === "coViews" ? coViewCache.getMany(keys) : learnedSimilarCache.getMany(keys);
    return (async () => {
      for (let from = 0; from < pool.size; from += WARM_BATCH) {
        const keys = pool.videos
          .slice(from, from + WARM_BATCH)
          .map((v) => keyOf(pool.experimentId, v.external_id));
        await load(keys);
      }
    })().catch((err) => {
      // Not warmed: requests load what they need; a later request tries again.
      warmed[kind].delete(pool);
      throw err;
    });
  }

  /**
   * The pool's popularity order with the play counts' text it comes from; the order held when the
   * counts read are the same.
   */
  async function computePopularity(
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

  /** External ids to pool indices, in order, dropping ids outside the pool. */
  const indicesOf = (pool: Pool, ids: readonly string[]) => {
    const out: number[] = [];
    for (const id of ids) {
      const i = pool.indexByExternalId.get(id);
      if (i !== undefined) out.push(i);
    }
    return out;
  };

  return {
    /**
     * Reads the co-views (`coViews`) or learned neighbours (`learned`) of every pool video ahead of
     * the requests that need them (a recommender calls this when it first serves a pool). Resolves
     * when done; a second call for the same pool and data resolves at once.
     */
    warm,

    /**
     * Pool indices of the participant's watched videos (VIDEO_WATCHED_1S or VIDEO_ENDED), newest
     * first: read from the read model on every request, or, once `followWatched` is on, from memory
     * that the projector's batches update.
     */
    async watched(userId: string, pool: Pool): Promise<number[]> {
      if (!watchedFollowed) return indicesOf(pool, await watchedVideoIds(db, userId));
      const cached = watchedCache.get(userId);
      if (cached) return indicesOf(pool, cached);
      const changed = watchedChangedAt.get(userId);
      const clears = watchedClears;
      const ids = await watchedVideoIds(db, userId);
      // Kept only if nothing changed it meanwhile (else the next request reads again).
      if (watchedChangedAt.get(userId) === changed && watchedClears === clears) {
        if (watchedCache.size >= WATCHED_KEPT) watchedCache.clear();
        watchedCache.set(userId, ids);
      }
      return indicesOf(pool, ids);
    },

    /**
     * Keeps participants' watched history in memory, told of every change by `source`: the projector
     * of this process, when it is the only writer of the read model (the embedded database, one
     * process). It calls back after each committed batch and before read-after waiters are released,
     * so a request that waited for its events sees them. A database read that a change crossed is
     * answered but not kept.
     */
    followWatched(source: { onApplied(listener: (events: readonly LoggedEvent[]) => void): () => void }) {
      watchedFollowed = true;
      return source.onApplied((events) => {
        for (const e of events) if (WATCHED_TYPES.has(e.event_type)) forgetWatched(e.user_id);
      });
    },

    /** The pool by play count in this experiment (every VIDEO_PLAY, autoplay included), ties newest first. */
    popularity(pool: Pool): Promise<PopularityOrder> {
      let entry = popularityByExperiment.get(pool.experimentId);
      if (!entry || entry.version !== pool.version) {
        entry = { version: pool.version, at: 0 };
        popularityByExperiment.set(pool.experimentId, entry);
      }
      const e = entry;
      const refresh = () => {
        const loading = computePopularity(pool, e).then(
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
        if (now() - e.at > popularityRefreshMs && !e.loading) refresh().catch(() => {});
        return Promise.resolve(e.value);
      }
      return e.loading ?? refresh();
    },

    /**
     * The videos' most co-viewed partners (pairs watched by the same participant) with their counts,
     * by external id, at most CO_VIEWS_KEPT each, most co-viewed first; one round trip for the batch.
     */
    coViews(
      experimentId: string,
      externalIds: readonly string[],
    ): Promise<(readonly (readonly [string, number])[])[]> {
      return coViewCache.getMany(externalIds.map((id) => keyOf(experimentId, id)));
    },

    /**
     * The trainer's collaborative-filtering ranking of the participant (recommendation_cache), as
     * pool indices. Kept per participant like the neighbours; a `model` change drops it.
     */
    async learnedRanking(pool: Pool, userId: string): Promise<number[]> {
      return indicesOf(pool, await learnedRankingCache.get(keyOf(pool.experimentId, userId)));
    },

    /** The trainer's item-to-item neighbours of a video (item_similarity), best first, as pool indices. */
    async learnedSimilar(pool: Pool, index: number): Promise<number[]> {
      const externalId = pool.videos[index]?.external_id;
      if (externalId === undefined) return [];
      return indicesOf(pool, await learnedSimilarCache.get(keyOf(pool.experimentId, externalId)));
    },
  };
}

export type ReadModels = ReturnType<typeof createReadModels>;
