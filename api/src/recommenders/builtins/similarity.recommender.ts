import { metadataIndexOf, type Neighbour } from "@feedlab/trainer";
import type { Caches } from "../caches/index.ts";
import type { Pool } from "../pool.ts";
import { idsOf, pageOfChain, type Recommender, type RecommendRequest } from "../recommender.ts";

/**
 * Co-views needed for them to weigh as much as metadata (shrinkage: beta = n / (n + CO_VIEW_PRIOR)).
 * Small, as in the learned model: in a lab study a few participants watching two videos together is
 * already strong evidence.
 */
export const CO_VIEW_PRIOR = 3;
/** How many of the participant's recent watches seed the feed. */
const FEED_SEEDS = 5;
/** Weight of the k-th most recent watch on the feed: DECAY^k. */
const DECAY = 0.7;

/**
 * Blends metadata similarity with co-view counts. With n co-views of the video in total and c_j with
 * video j (of at most m with any one video), score_j = (1 - beta) * meta_j + beta * c_j / m, where
 * beta = n / (n + CO_VIEW_PRIOR): metadata alone until co-views exist, co-views dominating as they
 * accumulate. Pure; exported for tests.
 */
export function blend(
  meta: readonly Neighbour[],
  coViews: readonly (readonly [number, number])[],
): Neighbour[] {
  if (coViews.length === 0) return [...meta];
  let total = 0;
  let max = 0;
  for (const [, c] of coViews) {
    total += c;
    max = Math.max(max, c);
  }
  const beta = total / (total + CO_VIEW_PRIOR);
  const scores = new Map<number, number>();
  for (const n of meta) scores.set(n.index, (1 - beta) * n.score);
  for (const [j, c] of coViews) scores.set(j, (scores.get(j) ?? 0) + beta * (max > 0 ? c / max : 0));
  return [...scores]
    .map(([index, score]) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** A ranked list of pool indices with their scores, best first. */
interface Ranked {
  readonly index: Int32Array;
  readonly score: Float64Array;
}

/** Per pool, memoised results (a new pool starts afresh); cleared when it grows past `max`. */
class PoolMemo<K, V> {
  readonly #byPool = new WeakMap<Pool, Map<K, V>>();
  readonly #max: number;
  constructor(max = Number.POSITIVE_INFINITY) {
    this.#max = max;
  }
  of(pool: Pool): Map<K, V> {
    let m = this.#byPool.get(pool);
    if (!m) {
      m = new Map();
      this.#byPool.set(pool, m);
    }
    if (m.size > this.#max) m.clear();
    return m;
  }
}
/** Blended lists per video (at most one per pool video), with the co-view answer they were made from. */
const blended = new PoolMemo<number, { coViews: unknown; list: Ranked }>();
/** Feed orders per list of seeds, with the blended lists they were made from. */
const feedOrders = new PoolMemo<string, { lists: readonly Ranked[]; order: number[] }>(5000);

/** `blend` on typed arrays (the metadata list itself when there are no co-views). */
function blendRanked(meta: Ranked, coViews: readonly (readonly [number, number])[]): Ranked {
  if (coViews.length === 0) return meta;
  const list = blend(
    Array.from(meta.index, (index, k) => ({ index, score: meta.score[k] as number })),
    coViews,
  );
  return { index: Int32Array.from(list, (n) => n.index), score: Float64Array.from(list, (n) => n.score) };
}

/**
 * Videos' neighbours in the pool: metadata similarity blended with this experiment's co-views. A
 * video's list is recomputed only when its co-views were read again (or the pool changed).
 */
async function similarTo(caches: Caches, pool: Pool, indices: readonly number[]): Promise<Ranked[]> {
  const meta = metadataIndexOf(pool.videos);
  const memo = blended.of(pool);
  const externalIds = indices.map((i) => pool.videos[i]?.external_id ?? "");
  const pairs = await caches.coViews(pool.experimentId, externalIds);
  return indices.map((index, k) => {
    const answer = pairs[k] ?? [];
    const cached = memo.get(index);
    if (cached && cached.coViews === answer) return cached.list;
    const coViews: [number, number][] = [];
    for (const [other, count] of answer) {
      const j = pool.indexByExternalId.get(other);
      if (j !== undefined && j !== index && count > 0) coViews.push([j, count]);
    }
    const list = blendRanked(meta.neighbourArrays(index), coViews);
    memo.set(index, { coViews: answer, list });
    return list;
  });
}

/** How long the warm-up computes before letting requests in (ms). */
const WARM_SLICE_MS = 3;
const warmedPools = new WeakSet<Pool>();

/**
 * Computes every pool video's blended neighbours ahead of the requests that need them: the co-views
 * are read WARM_BATCH videos a round trip (caches.warm), and the metadata similarity and blends
 * are computed a few milliseconds at a time, so that requests are served in between. Once per pool.
 */
function warmSimilarity(caches: Caches, pool: Pool): Promise<void> {
  if (warmedPools.has(pool)) return Promise.resolve();
  warmedPools.add(pool);
  return (async () => {
    await caches.warm(pool, "coViews");
    let slice = performance.now();
    for (let i = 0; i < pool.size; i++) {
      await similarTo(caches, pool, [i]);
      if (performance.now() - slice > WARM_SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
    }
  })().catch(() => {
    // Requests compute what they need; a later request tries again.
    warmedPools.delete(pool);
  });
}

/** The similarity part of the ranking: of the current video, else of the recent watches, else none. */
async function similarOrder(caches: Caches, request: RecommendRequest): Promise<Iterable<number>> {
  const { pool } = request;
  if (request.current) {
    const [list] = await similarTo(caches, pool, [request.current.index]);
    return list?.index ?? [];
  }
  if (request.watched.length === 0) return [];
  const seeds = request.watched.slice(0, FEED_SEEDS);
  const lists = await similarTo(caches, pool, seeds);
  const memo = feedOrders.of(pool);
  const seedKey = seeds.join(",");
  const cached = memo.get(seedKey);
  if (cached?.lists.every((list, k) => list === lists[k])) return cached.order;
  const scores = new Map<number, number>();
  lists.forEach((list, k) => {
    const w = DECAY ** k;
    list.index.forEach((j, q) => {
      scores.set(j, (scores.get(j) ?? 0) + w * (list.score[q] as number));
    });
  });
  const order = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
  memo.set(seedKey, { lists, order });
  return order;
}

/**
 * Built-in `similarity`. Watch page: the current video's neighbours, then the rest by popularity.
 * Feed: neighbours of the participant's recent watches (the most recent weighing most), then the
 * rest by popularity; without watches, popularity.
 */
export function createSimilarityRecommender(caches: Caches): Recommender {
  return {
    key: "similarity",
    warm: (pool) => warmSimilarity(caches, pool),
    async recommend(request) {
      const { pool } = request;
      void warmSimilarity(caches, pool);
      const [similar, { order }] = await Promise.all([
        similarOrder(caches, request),
        caches.popularity(pool),
      ]);
      return idsOf(pool, pageOfChain(request, [similar, order]));
    },
  };
}
