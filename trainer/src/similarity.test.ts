import { describe, expect, it } from "vitest";
import { createComputePool } from "./parallel/pool.ts";
import {
  blendScore,
  DEFAULT_SIMILARITY_CONFIG,
  itemSimilarity,
  type SimilarityConfig,
} from "./similarity.ts";
import { csrFromTriplets } from "./sparse.ts";

// Explicit weights, so the hand computations below check the formula whatever the defaults are.
const config: SimilarityConfig = {
  neighbours: 3,
  candidates: 3,
  factorWeight: 0.6,
  coViewWeight: 0.25,
  evidencePrior: 10,
  coViewPrior: 10,
};
const noCoViews = csrFromTriplets(4, 4, new Int32Array(0), new Int32Array(0), new Float32Array(0));

describe("learned item-to-item similarity", () => {
  it("blends cosine, co-views and metadata with weights that grow with the evidence (by hand)", () => {
    // minSupport 10 = evidencePrior: wF = 0.6 * 0.5 = 0.3; 10 co-views: wC = 0.25 * 0.5 = 0.125; wM = 0.575.
    const s = blendScore(config, {
      cosine: 0.8,
      minSupport: 10,
      coViews: 2,
      maxCoViews: 4,
      totalCoViews: 10,
      metadata: 0.4,
    });
    expect(s).toBeCloseTo(0.3 * 0.8 + 0.125 * 0.5 + 0.575 * 0.4, 12);
    // No behaviour at all: the metadata similarity alone.
    expect(
      blendScore(config, {
        cosine: 0.9,
        minSupport: 0,
        coViews: 0,
        maxCoViews: 0,
        totalCoViews: 0,
        metadata: 0.4,
      }),
    ).toBe(0.4);
    // A negative cosine counts as no similarity.
    expect(
      blendScore(config, {
        cosine: -1,
        minSupport: 1e9,
        coViews: 0,
        maxCoViews: 0,
        totalCoViews: 0,
        metadata: 0,
      }),
    ).toBe(0);
  });

  it("lets behaviour outweigh metadata by default once five participants watched a video (small studies)", () => {
    // Metadata's share of the score: a pair similar only by metadata.
    const metadataShare = (minSupport: number, totalCoViews: number) =>
      blendScore(DEFAULT_SIMILARITY_CONFIG, {
        cosine: 0,
        minSupport,
        coViews: 0,
        maxCoViews: 1,
        totalCoViews,
        metadata: 1,
      });
    expect(metadataShare(0, 0)).toBe(1);
    // Five watchers of eight videos each: 35 co-views.
    expect(metadataShare(5, 35)).toBeLessThan(0.4);
    expect(metadataShare(1000, 1000)).toBeCloseTo(0.15, 2);
  });

  it("orders a video's neighbours by factor cosine when only factors are known", async () => {
    // Factors: v0 = (1, 0), v1 = (0.8, 0.6), v2 = (0, 1), v3 = (-1, 0). Cosines from v0: 0.8, 0, -1.
    const lists = await itemSimilarity(
      {
        itemFactors: Float32Array.from([1, 0, 0.8, 0.6, 0, 1, -1, 0]),
        items: 4,
        k: 2,
        support: Int32Array.from([10, 10, 10, 10]),
        coViews: noCoViews,
        mask: new Uint8Array(4).fill(1),
      },
      config,
      createComputePool(0),
    );
    const row = (i: number) => Array.from(lists.indices.subarray(lists.indptr[i], lists.indptr[i + 1]));
    // Only positive scores are kept: v0's only neighbour is v1, with 0.3 * 0.8.
    expect(row(0)).toEqual([1]);
    expect(lists.scores[lists.indptr[0] as number]).toBeCloseTo(0.24, 6);
    // v1 is close to both v0 (0.8) and v2 (0.6).
    expect(row(1)).toEqual([0, 2]);
    expect(row(3)).toEqual([]);
  });

  it("adds co-viewed and metadata neighbours and leaves out videos outside the pool", async () => {
    const coViews = csrFromTriplets(
      4,
      4,
      Int32Array.from([0, 3, 0, 2]),
      Int32Array.from([3, 0, 2, 0]),
      Float32Array.from([4, 4, 1, 1]),
    );
    const lists = await itemSimilarity(
      {
        itemFactors: Float32Array.from([1, 0, 0.8, 0.6, 0, 1, -1, 0]),
        items: 4,
        k: 2,
        support: Int32Array.from([10, 10, 10, 10]),
        coViews,
        metadata: (i) =>
          i === 0
            ? [
                { index: 2, score: 0.9 },
                { index: 1, score: 0.1 },
              ]
            : [],
        mask: Uint8Array.from([1, 0, 1, 1]),
      },
      config,
      createComputePool(0),
    );
    const row = Array.from(lists.indices.subarray(lists.indptr[0], lists.indptr[1]));
    const scores = Array.from(lists.scores.subarray(lists.indptr[0], lists.indptr[1]));
    // wF = 0.3, wC = 0.25 * 5 / 15, wM = 1 - wF - wC. v3: co-views 4/4; v2: co-views 1/4, metadata 0.9.
    const wC = 0.25 * (5 / 15);
    const wM = 1 - 0.3 - wC;
    expect(row).toEqual([2, 3]);
    expect(scores[0]).toBeCloseTo(wC * 0.25 + wM * 0.9, 6);
    expect(scores[1]).toBeCloseTo(wC * 1, 6);
    // Video 1 is outside the pool: it gets no neighbours.
    expect(lists.indptr[2]).toBe(lists.indptr[1]);
  });
});
