import { describe, expect, it } from "vitest";
import { clusteredRatio } from "./ratio.ts";

describe("the clustered ratio estimate", () => {
  it("gives the ratio of sums and the cluster-robust interval, as computed by hand", () => {
    // Three participants: 1/10, 3/10 and 2/20 clicks per impression. R = 6/40 = 0.15; residuals
    // -0.5, 1.5, -1; Var = 3/2 · 3.5 / 40² = 0.00328125; SE = 0.0572822; ±1.96 SE = ±0.11227.
    const r = clusteredRatio([
      { y: 1, x: 10 },
      { y: 3, x: 10 },
      { y: 2, x: 20 },
    ]);
    expect(r.value).toBeCloseTo(0.15, 10);
    expect(r.low).toBeCloseTo(0.03773, 5);
    expect(r.high).toBeCloseTo(0.26227, 5);
  });

  it("is wider than an interval that treats every impression as independent when participants differ", () => {
    const clustered = clusteredRatio([
      { y: 10, x: 10 },
      { y: 0, x: 10 },
      { y: 10, x: 10 },
      { y: 0, x: 10 },
    ]);
    const p = 0.5;
    const naive = 1.96 * Math.sqrt((p * (1 - p)) / 40);
    expect(((clustered.high ?? 0) - (clustered.low ?? 0)) / 2).toBeGreaterThan(naive);
  });

  it("has no value without a denominator, and no interval with one participant", () => {
    expect(clusteredRatio([])).toEqual({ value: null, low: null, high: null });
    expect(clusteredRatio([{ y: 0, x: 0 }])).toEqual({ value: null, low: null, high: null });
    expect(clusteredRatio([{ y: 2, x: 4 }])).toEqual({ value: 0.5, low: null, high: null });
  });

  it("never goes below zero", () => {
    const r = clusteredRatio([
      { y: 0, x: 10 },
      { y: 0, x: 10 },
      { y: 1, x: 10 },
    ]);
    expect(r.low).toBe(0);
  });

  it("never goes above one for a share, but leaves a rate above one unclipped", () => {
    const share = clusteredRatio([
      { y: 1, x: 1 },
      { y: 0, x: 1 },
    ]);
    expect(share.high).toBe(1);
    const over = clusteredRatio([
      { y: 3, x: 1 },
      { y: 0, x: 1 },
    ]);
    expect(over.value).toBe(1.5);
    expect(over.high).toBeGreaterThan(1.5);
  });
});
