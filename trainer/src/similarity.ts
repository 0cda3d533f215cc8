import type { ComputePool } from "./parallel/pool.ts";
import { normalizeRows, topByDot } from "./rank.ts";
import type { Csr } from "./sparse.ts";

/** How the learned item-to-item similarity is blended (see `blendScore`). */
export interface SimilarityConfig {
  /** Neighbours kept per video. */
  readonly neighbours: number;
  /** Nearest videos by factor cosine considered per video (besides co-viewed and metadata neighbours). */
  readonly candidates: number;
  /** Weight of the factor cosine once both videos have plenty of interactions. */
  readonly factorWeight: number;
  /** Weight of co-views once the video has plenty of them. */
  readonly coViewWeight: number;
  /** Interactions at which the factor cosine gets half its weight (shrinkage for sparse videos). */
  readonly evidencePrior: number;
  /** Co-views at which co-views get half their weight (the similarity built-in's prior). */
  readonly coViewPrior: number;
}

/**
 * Lab studies are small (tens of participants): a video watched by five of them already says more
 * than its title. So behaviour takes over early: half its weight at 3 interactions (factors) and at
 * 3 co-views, and metadata keeps 0.15 once there is plenty of both. (With priors of 10, metadata kept
 * most of the weight until a video had about ten interactions, and a title shared across tastes
 * outranked the videos the same participants watched: the planted-cluster test in
 * api/src/training/training.int.test.ts.)
 */
export const DEFAULT_SIMILARITY_CONFIG: SimilarityConfig = Object.freeze({
  neighbours: 50,
  candidates: 100,
  factorWeight: 0.45,
  coViewWeight: 0.4,
  evidencePrior: 3,
  coViewPrior: 3,
});

/** A video's metadata neighbour: its index and a cosine in (0, 1]. */
export interface MetadataNeighbour {
  readonly index: number;
  readonly score: number;
}

export interface SimilarityInput {
  /** Video factors, `items` x `k`. */
  readonly itemFactors: Float32Array;
  readonly items: number;
  readonly k: number;
  /** Participants who interacted with each video: the evidence behind its factors. */
  readonly support: Int32Array;
  /** Co-view counts between videos (symmetric: each pair in both rows). */
  readonly coViews: Csr;
  /** The metadata neighbours of a video (TF-IDF cosine), or none. */
  readonly metadata?: (item: number) => readonly MetadataNeighbour[];
  /** 1 = a video of the pool: only these get and are neighbours. */
  readonly mask: Uint8Array;
}

/** Per video, its neighbours best first: row i holds `indices[indptr[i]..indptr[i+1]]`. */
export interface NeighbourLists {
  readonly indptr: Int32Array;
  readonly indices: Int32Array;
  readonly scores: Float32Array;
}

/**
 * One pair's blended score:
 *   s = wF * max(0, cos) + wC * coViews / maxCoViews + (1 - wF - wC) * metadata
 * with wF = factorWeight * m / (m + evidencePrior), m the smaller of the two videos' interaction
 * counts (a factor vector learned from few interactions says little), and
 * wC = coViewWeight * n / (n + coViewPrior), n the video's co-views in total. Without behaviour the
 * score is the metadata similarity; as interactions accumulate, the learned factors and co-views take
 * over (0.45 and 0.4 by default, metadata keeping 0.15).
 */
export function blendScore(
  config: SimilarityConfig,
  parts: {
    readonly cosine: number;
    readonly minSupport: number;
    readonly coViews: number;
    readonly maxCoViews: number;
    readonly totalCoViews: number;
    readonly metadata: number;
  },
): number {
  const wF = config.factorWeight * (parts.minSupport / (parts.minSupport + config.evidencePrior));
  const wC = config.coViewWeight * (parts.totalCoViews / (parts.totalCoViews + config.coViewPrior));
  const co = parts.maxCoViews > 0 ? parts.coViews / parts.maxCoViews : 0;
  return wF * Math.max(0, parts.cosine) + wC * co + (1 - wF - wC) * parts.metadata;
}

/**
 * Item-to-item similarity for every pool video: candidates are its nearest videos by factor cosine,
 * its co-viewed videos and its metadata neighbours; each candidate is scored with `blendScore`, and
 * the best `neighbours` with a positive score are kept (ties to the lower index).
 */
export async function itemSimilarity(
  input: SimilarityInput,
  config: SimilarityConfig,
  pool: ComputePool,
): Promise<NeighbourLists> {
  const { items, k, mask, support, coViews } = input;
  // 1. Nearest videos by factor cosine (unit-length factors, so the dot product is the cosine).
  const unit = normalizeRows(input.itemFactors, items, k);
  const queries = Int32Array.from({ length: items }, (_, i) => i).filter((i) => mask[i] === 1);
  const K = Math.min(config.candidates, Math.max(1, items - 1));
  const nearest = await topByDot(pool, {
    Q: unit,
    T: unit,
    targets: items,
    k,
    K,
    queries,
    mask,
    selfExclude: true,
  });
  const cosine = (i: number, j: number) => {
    let s = 0;
    for (let f = 0; f < k; f++) s += (unit[i * k + f] as number) * (unit[j * k + f] as number);
    return s;
  };

  // 2. Per video: gather candidates, score them, keep the best.
  const indptr = new Int32Array(items + 1);
  const outIdx: number[] = [];
  const outScore: number[] = [];
  const meta = new Map<number, number>();
  const co = new Map<number, number>();
  queries.forEach((i, pos) => {
    meta.clear();
    co.clear();
    for (const n of input.metadata?.(i) ?? [])
      if (n.index !== i && mask[n.index] === 1) meta.set(n.index, n.score);
    let total = 0;
    let max = 0;
    for (let q = coViews.indptr[i] as number; q < (coViews.indptr[i + 1] as number); q++) {
      const j = coViews.indices[q] as number;
      const c = coViews.values[q] as number;
      if (j === i || mask[j] !== 1 || !(c > 0)) continue;
      co.set(j, c);
      total += c;
      max = Math.max(max, c);
    }
    const candidates = new Set<number>([...meta.keys(), ...co.keys()]);
    for (let r = 0; r < K; r++) {
      const j = nearest.indices[pos * K + r] as number;
      if (j >= 0) candidates.add(j);
    }
    const scored: [number, number][] = [];
    for (const j of candidates) {
      const s = blendScore(config, {
        cosine: cosine(i, j),
        minSupport: Math.min(support[i] as number, support[j] as number),
        coViews: co.get(j) ?? 0,
        maxCoViews: max,
        totalCoViews: total,
        metadata: meta.get(j) ?? 0,
      });
      if (s > 1e-9) scored.push([j, s]);
    }
    scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const [j, s] of scored.slice(0, config.neighbours)) {
      outIdx.push(j);
      outScore.push(s);
    }
    indptr[i + 1] = outIdx.length;
  });
  // Videos outside the pool have no neighbours: carry the row pointers over them.
  for (let i = 0; i < items; i++) indptr[i + 1] = Math.max(indptr[i + 1] as number, indptr[i] as number);
  return { indptr, indices: Int32Array.from(outIdx), scores: Float32Array.from(outScore) };
}
