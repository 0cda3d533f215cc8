import { describe, expect, it } from "vitest";
import { DEFAULT_ALS_CONFIG, train } from "../als/als.ts";
import { weightMatrix } from "../data.ts";
import { plantedInteractions } from "../planted.ts";
import { topByDot } from "../rank.ts";
import { createComputePool } from "./pool.ts";
import { kernelModuleBytes, simdAvailable } from "./simd.ts";

/** A pool without workers whose arrays live in the kernels' memory. */
const simdPool = () => createComputePool(0, { simd: true });

describe("WebAssembly SIMD kernels", () => {
  it("run on this Node, from a module of about a kilobyte", () => {
    expect(simdAvailable()).toBe(true);
    expect(kernelModuleBytes().length).toBeLessThan(2048);
  });

  it("solve a participant's row exactly, as the 2 x 2 system checked by hand in cg.test.ts (padded to four factors)", async () => {
    const pool = simdPool();
    const k = 4;
    const X = pool.float32(k);
    await pool.run(
      "solveSimd",
      {
        X,
        Y: pool.share(Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0])),
        G: pool.share(Float32Array.from([2.1, 1, 0, 0, 1, 2.1, 0, 0, 0, 0, 0.1, 0, 0, 0, 0, 0.1])),
        indptr: pool.share(Int32Array.from([0, 2])),
        indices: pool.share(Int32Array.from([0, 2])),
        conf: pool.share(Float32Array.from([1, 2])),
        rows: 1,
        k,
        cgSteps: 4,
        scratch: pool.float32(4 * k),
      },
      1,
    );
    expect(X[0]).toBeCloseTo(11.5 / 11.91, 5);
    expect(X[1]).toBeCloseTo(0.3 / 11.91, 5);
    expect([X[2], X[3]]).toEqual([0, 0]);
  });

  it("rank the same top K as the double-precision kernels when scores are exact (small integers)", async () => {
    const targets = 300;
    const k = 8;
    const T = Float32Array.from({ length: targets * k }, (_, i) => ((i * 7919) % 13) - 6);
    const Q = Float32Array.from({ length: 20 * k }, (_, i) => ((i * 104729) % 5) - 2);
    const queries = Int32Array.from({ length: 20 }, (_, i) => i);
    const fast = await topByDot(createComputePool(0, { simd: true }), { Q, T, targets, k, K: 10, queries });
    const reference = await topByDot(createComputePool(0, { simd: false }), {
      Q,
      T,
      targets,
      k,
      K: 10,
      queries,
    });
    expect(Array.from(fast.indices)).toEqual(Array.from(reference.indices));
    expect(Array.from(fast.scores)).toEqual(Array.from(reference.scores));
  });

  it("train the same model as the double-precision kernels, up to single precision", async () => {
    const data = plantedInteractions({
      users: 300,
      items: 80,
      interactions: 3000,
      clusters: 4,
      inCluster: 0.8,
      seed: 2,
    });
    const m = weightMatrix(data);
    const config = { ...DEFAULT_ALS_CONFIG, factors: 16, iterations: 5 };
    const fast = await train(m, config, { pool: createComputePool(0, { simd: true }) });
    const reference = await train(m, config, { pool: createComputePool(0, { simd: false }) });
    let worst = 0;
    for (let u = 0; u < data.users; u += 7) {
      for (let i = 0; i < data.items; i += 3)
        worst = Math.max(worst, Math.abs(fast.score(u, i) - reference.score(u, i)));
    }
    expect(worst).toBeLessThan(1e-3);
  });
});
