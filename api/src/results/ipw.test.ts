import { describe, expect, it } from "vitest";
import { armSeed, hajekMean, ipwEstimate } from "./ipw.ts";

/** n participants: metric 1 for every third, 0 otherwise; probabilities cycling 0.5, 0.25, 0.8, 1. */
function arm(n: number) {
  const values = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
  const probabilities = Array.from({ length: n }, (_, i) => [0.5, 0.25, 0.8, 1][i % 4] as number);
  return { values, probabilities };
}

describe("the inverse-probability-weighted (Hajek) mean", () => {
  it("is the plain mean when every participant had the same probability", () => {
    expect(hajekMean([1, 0, 0, 1, 1], [0.3, 0.3, 0.3, 0.3, 0.3])).toBeCloseTo(0.6, 12);
    expect(ipwEstimate([0.2, 0.4, 0.9], [1, 1, 1], 1).value).toBeCloseTo(0.5, 12);
  });

  it("weighs a participant who got the arm at probability 0.1 ten times one who got it for sure", () => {
    // One participant with 1 at p = 0.1 against one with 0 at p = 1: (10 · 1 + 1 · 0) / (10 + 1).
    expect(hajekMean([1, 0], [0.1, 1])).toBeCloseTo(10 / 11, 12);
    // The same as ten copies of the first beside one of the second, unweighted.
    expect(hajekMean([1, 0], [0.1, 1])).toBeCloseTo(
      hajekMean([...Array(10).fill(1), 0], Array(11).fill(1)) ?? 0,
    );
  });

  it("has no value without a participant, and no interval with one", () => {
    expect(ipwEstimate([], [], 0)).toEqual({ value: null, low: null, high: null });
    expect(ipwEstimate([1], [0.4], 0)).toEqual({ value: 1, low: null, high: null });
  });

  it("gives an interval around the value that narrows as the arm grows", () => {
    const small = ipwEstimate(arm(24).values, arm(24).probabilities, 7);
    const large = ipwEstimate(arm(2400).values, arm(2400).probabilities, 7);
    for (const e of [small, large]) {
      expect(e.low).toBeLessThan(e.value ?? Number.NaN);
      expect(e.high).toBeGreaterThan(e.value ?? Number.NaN);
    }
    // The same pattern repeated: the same value, a hundred times the participants.
    expect(large.value).toBeCloseTo(small.value ?? 0, 12);
    const width = (e: typeof small) => (e.high ?? 0) - (e.low ?? 0);
    expect(width(large)).toBeLessThan(width(small) / 5);
  });

  it("draws the same interval from the same seed, and another from another seed or arm", () => {
    const { values, probabilities } = arm(30);
    const once = ipwEstimate(values, probabilities, armSeed(5, 0));
    expect(ipwEstimate(values, probabilities, armSeed(5, 0))).toEqual(once);
    expect(ipwEstimate(values, probabilities, armSeed(6, 0))).not.toEqual(once);
    expect(ipwEstimate(values, probabilities, armSeed(5, 1))).not.toEqual(once);
  });

  it("gives a zero-width interval when every participant has the same value, whatever the weights", () => {
    expect(ipwEstimate([1, 1, 1], [0.1, 0.5, 1], 3)).toEqual({ value: 1, low: 1, high: 1 });
  });
});
