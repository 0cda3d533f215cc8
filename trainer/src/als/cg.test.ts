import { describe, expect, it } from "vitest";
import { gramChunk, gramChunks, reduceGram, solveChunk } from "./cg.ts";

describe("ALS kernels", () => {
  // Y has three videos with two factors: y0 = (1, 0), y1 = (0, 1), y2 = (1, 1).
  const Y = Float32Array.from([1, 0, 0, 1, 1, 1]);

  it("computes G = YᵀY + λI of a 3 x 2 matrix", () => {
    const out = new Float64Array(gramChunks(3) * 4);
    gramChunk({ F: Y, rows: 3, k: 2, out }, 0);
    // YᵀY = [[1 + 1, 1], [1, 1 + 1]] = [[2, 1], [1, 2]]; plus 0.1 on the diagonal.
    expect(Array.from(reduceGram(out, 1, 2, 0.1))).toEqual([2.1, 1, 1, 2.1]);
  });

  it("solves a participant's row exactly in k conjugate-gradient steps (2 x 2 system checked by hand)", () => {
    // The participant watched video 0 (weight 1) and video 2 (weight 2); alpha = 1, lambda = 0.1.
    // A = YᵀY + λI + Σ (c - 1) y yᵀ = [[2.1, 1], [1, 2.1]] + 1·[[1, 0], [0, 0]] + 2·[[1, 1], [1, 1]]
    //   = [[5.1, 3], [3, 4.1]];  b = Σ c y = 2·(1, 0) + 3·(1, 1) = (5, 3).
    // x = A⁻¹ b = ((4.1·5 - 3·3), (5.1·3 - 3·5)) / (5.1·4.1 - 9) = (11.5, 0.3) / 11.91.
    const G = Float64Array.from([2.1, 1, 1, 2.1]);
    const X = new Float32Array(2);
    solveChunk(
      {
        X,
        Y,
        G,
        indptr: Int32Array.from([0, 2]),
        indices: Int32Array.from([0, 2]),
        conf: Float32Array.from([1, 2]),
        rows: 1,
        k: 2,
        cgSteps: 2,
      },
      0,
    );
    expect(X[0]).toBeCloseTo(11.5 / 11.91, 6);
    expect(X[1]).toBeCloseTo(0.3 / 11.91, 6);
  });

  it("gives a row without interactions the zero vector", () => {
    const X = Float32Array.from([0.5, 0.5]);
    solveChunk(
      {
        X,
        Y,
        G: Float64Array.from([2.1, 1, 1, 2.1]),
        indptr: Int32Array.from([0, 0]),
        indices: new Int32Array(0),
        conf: new Float32Array(0),
        rows: 1,
        k: 2,
        cgSteps: 3,
      },
      0,
    );
    expect(Array.from(X)).toEqual([0, 0]);
  });
});
