import { describe, expect, it } from "vitest";
import { addTo, type Histogram, merge, quantile } from "./latency.ts";

describe("latency histograms", () => {
  it("reads p50 and p95 within 10% of the exact quantiles", () => {
    const h: Histogram = {};
    const values = Array.from({ length: 1000 }, (_, i) => 5 + i * 0.7); // 5 .. 704.3 ms
    for (const v of values) addTo(h, v);
    const exact = (q: number) => values[Math.ceil(q * values.length) - 1] as number;
    for (const q of [0.5, 0.95]) {
      const got = quantile(h, q) as number;
      expect(Math.abs(got - exact(q)) / exact(q)).toBeLessThan(0.1);
    }
  });

  it("adds histograms of several processes as if one had seen every call", () => {
    const a: Histogram = {};
    const b: Histogram = {};
    const all: Histogram = {};
    for (const ms of [3, 40, 41, 900]) addTo(a, ms);
    for (const ms of [12, 13, 2000]) addTo(b, ms);
    for (const ms of [3, 40, 41, 900, 12, 13, 2000]) addTo(all, ms);
    merge(a, b);
    expect(a).toEqual(all);
  });

  it("has no quantile without calls", () => {
    expect(quantile({}, 0.5)).toBeNull();
  });
});
