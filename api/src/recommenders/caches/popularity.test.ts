import { describe, expect, it } from "vitest";
import { popularityOrder } from "./popularity.ts";

/** The order by a comparator: counts descending, equal counts in recency order (a stable sort). */
function byComparator(recency: Int32Array, plays: Float64Array) {
  const order = Array.from(recency).sort((a, b) => (plays[b] as number) - (plays[a] as number));
  return { order, played: order.filter((i) => (plays[i] as number) > 0).length };
}

describe("the popularity order", () => {
  it("ranks by plays, equal plays newest first, and counts the played videos, as a comparator sort does", () => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (const [size, most] of [
      [1, 0],
      [10, 0],
      [10, 3],
      [1000, 5],
      [5000, 100_000],
    ] as const) {
      const recency = Int32Array.from(Array.from({ length: size }, (_, i) => i).sort(() => random() - 0.5));
      // Many ties: most counts are small, some are zero.
      const plays = Float64Array.from({ length: size }, () => Math.floor(random() ** 3 * (most + 1)));
      const got = popularityOrder(recency, plays);
      const want = byComparator(recency, plays);
      expect(Array.from(got.order)).toEqual(want.order);
      expect(got.played).toBe(want.played);
    }
  });
});
