import { describe, expect, it } from "vitest";
import { createRandom } from "../../system/random.ts";
import { categoricalSmd } from "./balance-stats.ts";
import { type ArmLoad, adaptive, balanced, blocked, minimisation, thompsonProbabilities } from "./methods.ts";

const arms = (weights: readonly number[], counted: readonly number[] = []): ArmLoad[] =>
  weights.map((weight, i) => ({ id: `g${i}`, weight, counted: counted[i] ?? 0, open: true }));

/** Joins `n` newcomers one by one through a method, each counted at once; the arm ids in join order. */
function run(start: ArmLoad[], n: number, next: (arms: ArmLoad[], i: number) => string): string[] {
  const state = start.map((a) => ({ ...a }));
  const order: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = next(state, i);
    const arm = state.find((a) => a.id === id) as ArmLoad & { counted: number };
    arm.counted += 1;
    order.push(id);
  }
  return order;
}

const countsOf = (order: readonly string[], ids: readonly string[]) =>
  ids.map((id) => order.filter((o) => o === id).length);

describe("balanced assignment by weight", () => {
  const balancedRun = (weights: number[], joins: number) =>
    countsOf(
      run(arms(weights), joins, (a) => balanced(a)?.armId as string),
      weights.map((_, i) => `g${i}`),
    );

  it("alternates between equal arms, the earlier first on ties, with probability 1", () => {
    expect(balancedRun([1, 1], 1)).toEqual([1, 0]);
    expect(balancedRun([1, 1], 2)).toEqual([1, 1]);
    expect(balancedRun([1, 1, 1], 7)).toEqual([3, 2, 2]);
    expect(balanced(arms([1, 1]))?.probability).toBe(1);
  });

  it("keeps every arm within one participant of its weighted share after any number of joins", () => {
    for (const weights of [
      [1, 3],
      [2, 1, 1],
      [0.5, 0.25, 0.25],
      [5, 1],
    ]) {
      const total = weights.reduce((a, b) => a + b, 0);
      for (let joins = 1; joins <= 60; joins++)
        balancedRun(weights, joins).forEach((c, i) => {
          expect(Math.abs(c - (joins * (weights[i] ?? 0)) / total)).toBeLessThanOrEqual(1);
        });
    }
  });

  it("skips full or paused arms, and finds none when every arm is closed", () => {
    const closed = arms([1, 1]).map((a, i) => ({ ...a, open: i === 1 }));
    expect(balanced(closed)?.armId).toBe("g1");
    expect(balanced(closed.map((a) => ({ ...a, open: false })))).toBeNull();
    expect(balanced([])).toBeNull();
  });
});

describe("permuted blocks", () => {
  /** Joins through blocks of `size`, returning the arm order and each decision's probability. */
  function blockRun(weights: number[], size: number, joins: number, seed: number) {
    let remaining: string[] | null = null;
    const probabilities: number[] = [];
    const random = createRandom(seed);
    const order = run(arms(weights), joins, (a) => {
      const out = blocked(a, remaining, size, random);
      if (!out) throw new Error("no arm");
      remaining = out.remaining;
      probabilities.push(out.decision.probability);
      return out.decision.armId;
    });
    return { order, probabilities };
  }

  it("leaves the arms equal, by weight, at every block's end (seed 7)", () => {
    const { order } = blockRun([1, 2], 6, 600, 7);
    for (let end = 6; end <= 600; end += 6) {
      const [a, b] = countsOf(order.slice(0, end), ["g0", "g1"]);
      expect([a, b]).toEqual([end / 3, (2 * end) / 3]);
    }
  });

  it("keeps the order inside a block unguessable from the joins before it (seed 11)", () => {
    const { order } = blockRun([1, 1], 4, 4000, 11);
    // Each of the six orders of a block of AABB appears, about as often as the others.
    const seen = new Map<string, number>();
    for (let b = 0; b < 1000; b++) {
      const key = order.slice(b * 4, b * 4 + 4).join(",");
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(seen.size).toBe(6);
    for (const n of seen.values()) expect(n).toBeGreaterThan(120);
    // Guessing the block's first arm from the previous joins (the arm balanced assignment would give)
    // is right about half the time: no better than a coin.
    let right = 0;
    for (let b = 1; b < 1000; b++) {
      const before = order.slice(0, b * 4);
      const guess = balanced(arms([1, 1], countsOf(before, ["g0", "g1"])))?.armId;
      if (order[b * 4] === guess) right++;
    }
    expect(right / 999).toBeGreaterThan(0.44);
    expect(right / 999).toBeLessThan(0.56);
  });

  it("gives each participant the arm's slots over the block's slots left as probability", () => {
    const { probabilities } = blockRun([1, 1], 4, 4, 3);
    // First of a block of 4: 2/4; the last slot is certain.
    expect(probabilities[0]).toBe(0.5);
    expect(probabilities[3]).toBe(1);
  });

  it("drops a closed arm's slots from the block", () => {
    const random = createRandom(5);
    const out = blocked(
      arms([1, 1]).map((a, i) => ({ ...a, open: i === 0 })),
      ["g1", "g0", "g1"],
      4,
      random,
    );
    expect(out?.decision).toEqual({ armId: "g0", probability: 1 });
    expect(out?.remaining).toEqual([]);
  });
});

describe("minimisation", () => {
  /** A skewed covariate arriving in an order that plain balancing mirrors: a, b, a, b, ... with a 70:30 mix. */
  const levelAt = (i: number) => (i % 10 < 7 ? (i % 2 === 0 ? "a" : "b") : i % 2 === 0 ? "b" : "a");

  function smdOf(order: readonly string[]): number {
    const perArm = ["g0", "g1"].map((id) => {
      const m = new Map<string, number>();
      order.forEach((o, i) => {
        if (o === id) m.set(levelAt(i), (m.get(levelAt(i)) ?? 0) + 1);
      });
      return m;
    });
    return categoricalSmd(perArm) ?? 0;
  }

  function minimisationRun(randomElement: number, seed: number, joins: number) {
    const counts = new Map(["g0", "g1"].map((id) => [id, new Map<string, number>()]));
    const random = createRandom(seed);
    return run(arms([1, 1]), joins, (a, i) => {
      const level = levelAt(i);
      const d = minimisation(a, [counts], [level], randomElement, random);
      if (!d) throw new Error("no arm");
      const m = counts.get(d.armId) as Map<string, number>;
      m.set(level, (m.get(level) ?? 0) + 1);
      return d.armId;
    });
  }

  it("keeps a skewed covariate within one participant across arms where plain balancing leaves it skewed (seed 3)", () => {
    const joins = 200;
    const plain = run(arms([1, 1]), joins, (a) => balanced(a)?.armId as string);
    const minimised = minimisationRun(1, 3, joins);
    for (let n = 1; n <= joins; n++)
      for (const level of ["a", "b"]) {
        const inArm = (id: string) =>
          minimised.slice(0, n).filter((o, i) => o === id && levelAt(i) === level).length;
        expect(Math.abs(inArm("g0") - inArm("g1"))).toBeLessThanOrEqual(1);
      }
    const withRandomElement = minimisationRun(0.8, 3, joins);
    console.info(
      `SMD of the covariate after ${joins} joins: balanced ${smdOf(plain).toFixed(3)}, minimisation ${smdOf(minimised).toFixed(3)}, minimisation with random element 0.8 ${smdOf(withRandomElement).toFixed(3)}`,
    );
    expect(smdOf(plain)).toBeGreaterThan(0.5);
    expect(smdOf(minimised)).toBeLessThan(0.05);
    expect(smdOf(withRandomElement)).toBeLessThan(0.1);
  });

  it("gives the preferred arm random_element, the others the rest, and each arm an equal chance on a tie", () => {
    const counts = new Map([
      ["g0", new Map([["a", 3]])],
      ["g1", new Map([["a", 1]])],
      ["g2", new Map([["a", 1]])],
    ]);
    const probabilities = new Map<string, number>();
    for (let s = 0; s < 200; s++) {
      const d = minimisation(arms([1, 1, 1]), [counts], ["a"], 0.8, createRandom(s));
      if (d) probabilities.set(d.armId, d.probability);
    }
    expect(probabilities.get("g0")).toBeCloseTo(0.2);
    expect(probabilities.get("g1")).toBeCloseTo(0.4);
    expect(minimisation(arms([1, 1]), [new Map()], ["a"], 0.8, createRandom(1))?.probability).toBe(0.5);
  });
});

describe("adaptive (Thompson sampling)", () => {
  const outcomes = (rates: readonly [number, number][]) =>
    new Map(rates.map(([s, t], i) => [`g${i}`, { id: `g${i}`, successes: s, trials: t }]));

  it("balances at 1/arms until every arm has its burn-in", () => {
    const d = adaptive(
      arms([1, 1, 1], [20, 19, 20]),
      outcomes([]),
      { burnIn: 20, floor: 0.05 },
      createRandom(1),
      createRandom(2),
    );
    expect(d).toEqual({ armId: "g1", probability: 1 / 3 });
  });

  it("favours the arm that does better, never below the floor", () => {
    const p = thompsonProbabilities(
      [
        ...outcomes([
          [30, 100],
          [60, 100],
        ]).values(),
      ],
      0.05,
      createRandom(9),
    );
    expect(p[1]).toBeGreaterThan(0.9);
    expect(p[0]).toBeGreaterThanOrEqual(0.05);
    expect((p[0] ?? 0) + (p[1] ?? 0)).toBeCloseTo(1);
    const d = adaptive(
      arms([1, 1], [50, 50]),
      outcomes([
        [30, 100],
        [60, 100],
      ]),
      { burnIn: 20, floor: 0.05 },
      createRandom(9),
      createRandom(10),
    );
    expect(d?.probability).toBeCloseTo(d?.armId === "g1" ? (p[1] ?? 0) : (p[0] ?? 0));
  });
});
