import { describe, expect, it } from "vitest";
import type { Interactions } from "./data.ts";
import { leaveLastOut, popularityLists, rankingMetrics } from "./evaluate.ts";

/** Three participants, four videos; times say which interaction is the latest. */
const data: Interactions = {
  users: 3,
  items: 4,
  user: Int32Array.from([0, 0, 0, 1, 1, 2]),
  item: Int32Array.from([0, 1, 2, 1, 3, 0]),
  weight: Float32Array.from([1, 3, 1, 1, 2, 1]),
  time: Float64Array.from([10, 30, 20, 50, 40, 60]),
};
const all = new Uint8Array(4).fill(1);

describe("offline evaluation", () => {
  it("holds out each participant's latest interaction, only for participants with at least two", () => {
    const split = leaveLastOut(data, { candidates: all, maxTestUsers: 100, seed: 1 });
    // Participant 0's latest is video 1 (t = 30), participant 1's is video 1 (t = 50); 2 has one interaction.
    expect(Array.from(split.testUsers)).toEqual([0, 1]);
    expect(Array.from(split.testItems)).toEqual([1, 1]);
    expect(split.eligible).toBe(2);
    expect(Array.from(split.train.indptr)).toEqual([0, 2, 3, 4]);
    expect(Array.from(split.train.indices)).toEqual([0, 2, 3, 0]);
  });

  it("does not test a participant whose latest video cannot be recommended (outside the pool)", () => {
    const split = leaveLastOut(data, {
      candidates: Uint8Array.from([1, 0, 1, 1]),
      maxTestUsers: 100,
      seed: 1,
    });
    expect(Array.from(split.testUsers)).toEqual([]);
    expect(split.train.indices).toHaveLength(6);
  });

  it("tests a seeded sample when more participants are eligible than asked for", () => {
    const a = leaveLastOut(data, { candidates: all, maxTestUsers: 1, seed: 5 });
    const b = leaveLastOut(data, { candidates: all, maxTestUsers: 1, seed: 5 });
    expect(a.testUsers).toHaveLength(1);
    expect(Array.from(a.testUsers)).toEqual(Array.from(b.testUsers));
    expect(a.train.indices).toHaveLength(5);
  });

  it("scores recall@10 and NDCG@10 by hand: a hit at rank 1, a hit at rank 3, a miss", () => {
    const K = 10;
    const ranked = new Int32Array(3 * K).fill(-1);
    ranked.set([7, 1, 2], 0);
    ranked.set([4, 5, 9], K);
    ranked.set([1, 2, 3], 2 * K);
    const m = rankingMetrics(ranked, K, Int32Array.from([7, 9, 8]));
    expect(m.recall).toBeCloseTo(2 / 3, 12);
    // (1/log2(2) + 1/log2(4) + 0) / 3 = (1 + 0.5) / 3
    expect(m.ndcg).toBeCloseTo(0.5, 12);
  });

  it("ranks the popularity baseline by training participants per video, leaving out what each one saw", () => {
    const split = leaveLastOut(data, { candidates: all, maxTestUsers: 100, seed: 1 });
    // Training: video 0 by participants 0 and 2, video 2 by 0, video 3 by 1 -> order 0, 2, 3, 1.
    const lists = popularityLists(split.train, split.testUsers, all, 3);
    expect(Array.from(lists.subarray(0, 3))).toEqual([3, 1, -1]);
    expect(Array.from(lists.subarray(3, 6))).toEqual([0, 2, 1]);
  });
});
