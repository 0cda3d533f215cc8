import { describe, expect, it } from "vitest";
import { weightMatrix } from "../data.ts";
import { evaluate, leaveLastOut } from "../evaluate.ts";
import { createComputePool } from "../parallel/pool.ts";
import { plantedInteractions } from "../planted.ts";
import { topByDot } from "../rank.ts";
import { csrFromTriplets } from "../sparse.ts";
import { type AlsConfig, DEFAULT_ALS_CONFIG, train, validateAlsConfig } from "./als.ts";

const config = (over: Partial<AlsConfig> = {}): AlsConfig => ({ ...DEFAULT_ALS_CONFIG, ...over });

/** Two blocks: participants 0 and 1 watched videos 0 and 1; participants 2 and 3 watched 2 and 3. */
const blocks = csrFromTriplets(
  4,
  4,
  Int32Array.from([0, 0, 1, 1, 2, 2, 3, 3]),
  Int32Array.from([0, 1, 0, 1, 2, 3, 2, 3]),
  Float32Array.from([1, 1, 1, 1, 1, 1, 1, 1]),
);

describe("implicit ALS", () => {
  it("reconstructs a two-block matrix: watched pairs near 1, pairs across blocks near 0", async () => {
    const model = await train(blocks, config({ factors: 2, regularization: 0.01, alpha: 1, iterations: 30 }));
    for (const [u, i] of [
      [0, 0],
      [0, 1],
      [1, 1],
      [2, 2],
      [3, 3],
    ] as const) {
      expect(model.score(u, i)).toBeGreaterThan(0.8);
      expect(model.score(u, i)).toBeLessThan(1.05);
    }
    for (const [u, i] of [
      [0, 2],
      [1, 3],
      [2, 0],
      [3, 1],
    ] as const) {
      expect(Math.abs(model.score(u, i))).toBeLessThan(0.1);
    }
  });

  it("returns an immutable model with one timing per iteration", async () => {
    const model = await train(blocks, config({ factors: 2, iterations: 3 }));
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.keys(model.timings).filter((k) => k.startsWith("als.iteration."))).toHaveLength(3);
    expect(() => {
      (model as { users: number }).users = 5;
    }).toThrow(TypeError);
  });

  it("gives the same factors for the same seed, in one thread or in two workers", async () => {
    const data = plantedInteractions({
      users: 400,
      items: 120,
      interactions: 4000,
      clusters: 4,
      inCluster: 0.8,
      seed: 3,
    });
    const m = weightMatrix(data);
    const a = await train(m, config({ factors: 16, iterations: 4 }));
    const b = await train(m, config({ factors: 16, iterations: 4 }));
    const pool = createComputePool(2);
    try {
      const c = await train(m, config({ factors: 16, iterations: 4 }), { pool });
      expect(Buffer.from(b.userFactors.buffer).equals(Buffer.from(a.userFactors.buffer))).toBe(true);
      expect(Array.from(c.userFactors)).toEqual(Array.from(a.userFactors));
      expect(Array.from(c.itemFactors)).toEqual(Array.from(a.itemFactors));
    } finally {
      await pool.close();
    }
    const other = await train(m, config({ factors: 16, iterations: 4, seed: 7 }));
    expect(Array.from(other.itemFactors)).not.toEqual(Array.from(a.itemFactors));
  });

  it("rejects a configuration with no factors or a negative regularisation", () => {
    expect(() => validateAlsConfig(config({ factors: 0 }))).toThrow(/factors/);
    expect(() => validateAlsConfig(config({ regularization: -1 }))).toThrow(/regularization/);
  });

  it("stops between iterations when aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped"));
    await expect(train(blocks, config(), { signal: controller.signal })).rejects.toThrow("stopped");
  });
});

describe("planted clusters (300 participants, 80 videos, 4 clusters, 80% of watches in cluster)", () => {
  const data = plantedInteractions({
    users: 300,
    items: 80,
    interactions: 3000,
    clusters: 4,
    inCluster: 0.8,
    seed: 11,
  });
  const all = new Uint8Array(data.items).fill(1);

  it("puts videos of the participant's own cluster first", async () => {
    const m = weightMatrix(data);
    const model = await train(m, DEFAULT_ALS_CONFIG);
    const pool = createComputePool(0);
    const lists = await topByDot(pool, {
      Q: model.userFactors,
      T: model.itemFactors,
      targets: data.items,
      k: model.factors,
      K: 10,
      queries: Int32Array.from({ length: data.users }, (_, u) => u),
      exclude: m,
      mask: all,
    });
    let same = 0;
    let total = 0;
    for (let u = 0; u < data.users; u++) {
      for (let r = 0; r < 10; r++) {
        const i = lists.indices[u * 10 + r] as number;
        if (i < 0) continue;
        total++;
        if (data.itemCluster[i] === data.userCluster[u]) same++;
      }
    }
    // A quarter would be chance; a fifth of every history comes from outside the cluster.
    expect(same / total).toBeGreaterThan(0.8);
  });

  it("beats the popularity baseline by far on leave-last-out recall@10 and NDCG@10", async () => {
    const split = leaveLastOut(data, { candidates: all, maxTestUsers: 10_000, seed: 1 });
    expect(split.testUsers.length).toBe(split.eligible);
    const model = await train(split.train, DEFAULT_ALS_CONFIG);
    const result = await evaluate(model, split, all, createComputePool(0));
    expect(result.test_users).toBeGreaterThan(250);
    expect(result.recall_at_10).toBeGreaterThan(0.5);
    expect(result.recall_at_10).toBeGreaterThan(1.8 * result.baseline_recall_at_10);
    expect(result.ndcg_at_10).toBeGreaterThan(1.8 * result.baseline_ndcg_at_10);
  });
});
