import { describe, expect, it } from "vitest";
import { csrFromTriplets, transpose } from "./sparse.ts";

describe("sparse matrices", () => {
  it("builds rows with columns ascending whatever the order of the triplets, and transposes them", () => {
    const m = csrFromTriplets(
      2,
      3,
      Int32Array.from([1, 0, 1, 0]),
      Int32Array.from([2, 1, 0, 0]),
      Float32Array.from([4, 2, 3, 1]),
    );
    expect(Array.from(m.indptr)).toEqual([0, 2, 4]);
    expect(Array.from(m.indices)).toEqual([0, 1, 0, 2]);
    expect(Array.from(m.values)).toEqual([1, 2, 3, 4]);
    const t = transpose(m);
    expect(Array.from(t.indptr)).toEqual([0, 2, 3, 4]);
    expect(Array.from(t.indices)).toEqual([0, 1, 0, 1]);
    expect(Array.from(t.values)).toEqual([1, 3, 2, 4]);
  });
});
