import { describe, expect, it } from "vitest";
import { topByDot } from "../rank.ts";
import { csrFromTriplets } from "../sparse.ts";
import { createComputePool } from "./pool.ts";

describe("top-K by dot product", () => {
  // One factor: scores are the products, easy to rank by hand.
  const T = Float32Array.from([1, 5, 3, 5, 2]);
  const Q = Float32Array.from([1, -1]);

  it("keeps the K best per query, ties to the lower index, leaving out excluded and masked targets", async () => {
    const pool = createComputePool(0);
    const exclude = csrFromTriplets(2, 5, Int32Array.from([0]), Int32Array.from([2]), Float32Array.from([1]));
    const top = await topByDot(pool, {
      Q,
      T,
      targets: 5,
      k: 1,
      K: 3,
      queries: Int32Array.from([0, 1]),
      exclude,
      mask: Uint8Array.from([1, 1, 1, 1, 0]),
    });
    // Query 0 (x1): 5 (v1), 5 (v3), 3 (v2, excluded), 1 (v0), 2 (v4, masked).
    expect(Array.from(top.indices.subarray(0, 3))).toEqual([1, 3, 0]);
    expect(Array.from(top.scores.subarray(0, 3))).toEqual([5, 5, 1]);
    // Query 1 (x-1): -1 (v0), -3 (v2), -5, -5.
    expect(Array.from(top.indices.subarray(3, 6))).toEqual([0, 2, 1]);
  });

  it("pads with -1 when fewer targets qualify, and answers the same with two workers", async () => {
    const inline = await topByDot(createComputePool(0), {
      Q,
      T,
      targets: 5,
      k: 1,
      K: 7,
      queries: Int32Array.from([1]),
      selfExclude: true,
    });
    // Query row 1 (x-1), itself (target 1) left out: -1 (v0), -2 (v4), -3 (v2), -5 (v3).
    expect(Array.from(inline.indices)).toEqual([0, 4, 2, 3, -1, -1, -1]);
    const pool = createComputePool(2);
    try {
      const parallel = await topByDot(pool, {
        Q,
        T,
        targets: 5,
        k: 1,
        K: 7,
        queries: Int32Array.from([1]),
        selfExclude: true,
      });
      expect(Array.from(parallel.indices)).toEqual(Array.from(inline.indices));
    } finally {
      await pool.close();
    }
  });
});
