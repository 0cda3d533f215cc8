import { describe, expect, it } from "vitest";
import { sampleRatioTest } from "./sample-ratio.ts";

describe("sample-ratio check", () => {
  it("passes assignment that follows the weights", () => {
    const r = sampleRatioTest([
      { weight: 1, count: 50 },
      { weight: 1, count: 50 },
      { weight: 2, count: 100 },
    ]);
    expect(r.chi_square).toBe(0);
    expect(r.p_value).toBeCloseTo(1, 10);
    expect(r.mismatch).toBe(false);
  });

  it("flags 600 against 400 under equal weights (chi-square 40, one degree of freedom)", () => {
    const r = sampleRatioTest([
      { weight: 1, count: 600 },
      { weight: 1, count: 400 },
    ]);
    expect(r.chi_square).toBeCloseTo(40, 10);
    // P(chi2_1 > 40) = 2.5e-10 (tables)
    expect(r.p_value).toBeGreaterThan(1e-10);
    expect(r.p_value).toBeLessThan(1e-9);
    expect(r.mismatch).toBe(true);
  });

  it("reads 52 against 48 as chance (p about 0.69)", () => {
    const r = sampleRatioTest([
      { weight: 1, count: 52 },
      { weight: 1, count: 48 },
    ]);
    expect(r.p_value).toBeCloseTo(0.6892, 3);
    expect(r.mismatch).toBe(false);
  });

  it("has no test with one group or nobody assigned", () => {
    expect(sampleRatioTest([{ weight: 1, count: 10 }]).p_value).toBeNull();
    expect(
      sampleRatioTest([
        { weight: 1, count: 0 },
        { weight: 1, count: 0 },
      ]).p_value,
    ).toBeNull();
  });
});
