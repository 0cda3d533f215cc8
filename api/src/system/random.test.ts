import { describe, expect, it } from "vitest";
import { createRandom, itemAt } from "./random.ts";

const draws = (seed: number, n = 20) => {
  const r = createRandom(seed);
  return Array.from({ length: n }, () => r.next());
};

describe("seeded random", () => {
  it("gives the same sequence for the same seed", () => {
    expect(draws(42)).toEqual(draws(42));
  });

  it("gives different sequences for different seeds", () => {
    expect(draws(42)).not.toEqual(draws(43));
  });

  it("forks a stream that depends on the seed and label only, not on draws made before", () => {
    const fresh = createRandom(7).fork("feed");
    const used = createRandom(7);
    for (let i = 0; i < 100; i++) used.next();
    const late = used.fork("feed");
    expect(Array.from({ length: 10 }, () => late.next())).toEqual(
      Array.from({ length: 10 }, () => fresh.next()),
    );
    expect(createRandom(7).fork("feed").next()).not.toBe(createRandom(7).fork("feee").next());
    expect(createRandom(7).fork("feed").next()).not.toBe(createRandom(8).fork("feed").next());
  });

  it("draws whole numbers inside both bounds and reaches each of them", () => {
    const r = createRandom(1);
    const seen = new Set(Array.from({ length: 1000 }, () => r.int(2, 5)));
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
  });

  it("keeps the bernoulli rate, the weighted choice and the beta mean within a tolerance", () => {
    const r = createRandom(3);
    const n = 20_000;
    let hits = 0;
    let bs = 0;
    let beta = 0;
    for (let i = 0; i < n; i++) {
      if (r.bernoulli(0.3)) hits++;
      if (r.pickWeighted(["a", "b"], (x) => (x === "b" ? 3 : 1)) === "b") bs++;
      beta += r.beta(0.2, 4);
    }
    // Binomial standard errors are about 0.003 here: 0.02 is over six of them.
    expect(Math.abs(hits / n - 0.3)).toBeLessThan(0.02);
    expect(Math.abs(bs / n - 0.75)).toBeLessThan(0.02);
    expect(Math.abs(beta / n - 0.2)).toBeLessThan(0.02);
  });

  it("keeps every beta draw inside (0, 1), small shapes included", () => {
    const r = createRandom(5);
    for (let i = 0; i < 2000; i++) {
      const b = r.beta(0.02, 2);
      expect(b).toBeGreaterThanOrEqual(0);
      expect(b).toBeLessThanOrEqual(1);
    }
  });

  it("samples distinct items and never more than there are", () => {
    const r = createRandom(9);
    const s = r.sample([1, 2, 3, 4, 5], 3);
    expect(new Set(s).size).toBe(3);
    expect(r.sample([1, 2], 5).sort()).toEqual([1, 2]);
  });

  it("throws when asked to pick from nothing", () => {
    const r = createRandom(1);
    expect(() => r.pick([])).toThrow(RangeError);
    expect(() => r.pickWeighted([], () => 1)).toThrow(RangeError);
    expect(() => itemAt([1], 1)).toThrow(RangeError);
  });
});
