import { describe, expect, it } from "vitest";
import { createRandom } from "../system/random.ts";
import {
  closedFormPerArm,
  closedFormPower,
  designEffect,
  normalCdf,
  normalQuantile,
  unequalDesignEffect,
} from "./power.closed-form.ts";
import {
  estimatePilot,
  type Pilot,
  RESAMPLING_MAX_PER_ARM,
  resample,
  searchPerArm,
  simulatedPower,
} from "./power.resampling.ts";
import { type ArmSums, clusteredRatio, ratioFromSums } from "./ratio.ts";

/**
 * A planted pilot: each participant's own rate drawn from a Beta with mean `rate` and concentration
 * c = 1/icc - 1 (so the intra-participant correlation is `icc`), then `size` Bernoulli trials at it.
 */
function plantedPilot(participants: number, rate: number, icc: number, size: number, seed = 7): Pilot {
  const random = createRandom(seed);
  const xs = new Float64Array(participants);
  const ys = new Float64Array(participants);
  for (let i = 0; i < participants; i++) {
    const own = random.beta(rate, 1 / icc - 1);
    let y = 0;
    for (let t = 0; t < size; t++) if (random.bernoulli(own)) y++;
    xs[i] = size;
    ys[i] = y;
  }
  return { xs, ys };
}

describe("power: the closed form", () => {
  it("has the normal quantiles and distribution function of the tables", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 5);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829, 5);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-0.841621)).toBeCloseTo(0.2, 6);
  });

  it("gives the design-effect figure computed by hand for two arms at 10% and 12%, icc 0.05, 50 impressions each", () => {
    // By hand: (1.959964 + 0.841621)² = 7.848879; p1 q1 + p2 q2 = 0.09 + 0.1056 = 0.1956;
    // DE = 1 + 49 · 0.05 = 3.45; n = 7.848879 · 0.1956 / 0.02² · 3.45 / 50 = 264.83 -> 265.
    const hand = Math.ceil((7.848879 * 0.1956 * 3.45) / (0.0004 * 50));
    expect(hand).toBe(265);
    const design = {
      baseline: 0.1,
      effect: 0.02,
      alpha: 0.05,
      perParticipant: 50,
      designEffect: designEffect(50, 0.05),
    };
    const n = closedFormPerArm(design, 0.8);
    expect(Math.abs(n - hand) / hand).toBeLessThan(0.05);
    expect(n).toBe(265);
    // At that size the power is the asked 80% (both tails, so a hair above).
    expect(closedFormPower(design, n)).toBeGreaterThanOrEqual(0.8);
    expect(closedFormPower(design, n - 2)).toBeLessThan(0.8);
  });

  it("inflates for unequal sizes as Eldridge et al. say, and reduces to Kish's with equal ones", () => {
    expect(unequalDesignEffect(50, 0, 0.05)).toBeCloseTo(designEffect(50, 0.05), 12);
    expect(unequalDesignEffect(50, 0.5, 0.05)).toBeCloseTo(1 + (1.25 * 50 - 1) * 0.05, 12);
  });
});

describe("power: resampling a pilot", () => {
  it("computes /stats's clustered ratio and variance from five sums", () => {
    const clusters = [
      { y: 1, x: 10 },
      { y: 3, x: 10 },
      { y: 2, x: 20 },
    ];
    const sums = clusters.reduce<ArmSums>(
      (s, c) => ({
        n: s.n + 1,
        x: s.x + c.x,
        y: s.y + c.y,
        xx: s.xx + c.x * c.x,
        yy: s.yy + c.y * c.y,
        xy: s.xy + c.x * c.y,
      }),
      { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 },
    );
    const fromSums = ratioFromSums(sums);
    const direct = clusteredRatio(clusters);
    expect(fromSums?.value).toBeCloseTo(direct.value ?? Number.NaN, 12);
    // The interval of ratio.ts is value ± 1.96 · sqrt(variance) (0.15 ± 0.11227, as stats.int.test.ts checks).
    expect(1.959963984540054 * Math.sqrt(fromSums?.variance ?? 0)).toBeCloseTo(0.11227, 5);
  });

  it("estimates a planted pilot's rate, intra-participant correlation and size", () => {
    const est = estimatePilot(plantedPilot(2000, 0.1, 0.05, 50));
    expect(est.rate).toBeCloseTo(0.1, 2);
    expect(est.icc).toBeGreaterThan(0.035);
    expect(est.icc).toBeLessThan(0.065);
    expect(est.perParticipant).toBe(50);
    expect(est.cv).toBe(0);
  });

  it("finds 0 correlation in a pilot without clustering, and none without data", () => {
    expect(estimatePilot(plantedPilot(2000, 0.2, 1e-9, 40)).icc).toBeLessThan(0.01);
    expect(estimatePilot({ xs: new Float64Array(0), ys: new Float64Array(0) })).toEqual({
      rate: 0,
      icc: 0,
      perParticipant: 0,
      cv: 0,
    });
  });

  it("lands within 10% of the closed form on a planted pilot with known rate and icc", () => {
    const pilot = plantedPilot(2000, 0.1, 0.05, 50);
    const sim = { effect: 0.02, alpha: 0.05, resamples: 1000, seed: 3 };
    const cache = new Map<number, number>();
    const needed = searchPerArm(
      (n) => simulatedPower(pilot, estimatePilot(pilot).rate, n, sim),
      0.8,
      200,
      cache,
    );
    // The closed form with the planted parameters: 265 (checked by hand above).
    expect(needed).not.toBeNull();
    expect(Math.abs((needed ?? 0) - 265) / 265).toBeLessThan(0.1);
    // With no effect, rejections are the test's size: about alpha.
    const size = simulatedPower(pilot, 0.1, 265, { ...sim, effect: 0 });
    expect(size).toBeGreaterThan(0.03);
    expect(size).toBeLessThan(0.075);
  });

  it("answers the power now from the sizes it simulated, and lists each size once", () => {
    const pilot = plantedPilot(500, 0.2, 0.05, 20);
    const job = { pilot, rate: estimatePilot(pilot).rate, target: 0.8, guess: 300, now: 300 };
    const answer = resample({ ...job, sim: { effect: 0.05, alpha: 0.05, resamples: 300, seed: 2 } });
    const sizes = answer.simulated.map((s) => s.participants_per_arm);
    expect(new Set(sizes).size).toBe(sizes.length);
    expect(answer.powerNow).toBe(answer.simulated.find((s) => s.participants_per_arm === 300)?.power);
    expect(sizes).toContain(answer.needed);
  });

  it("gives the same answer for the same seed and draws other resamples for another", () => {
    const pilot = plantedPilot(300, 0.3, 0.1, 10);
    const sim = { effect: 0.05, alpha: 0.05, resamples: 200, seed: 11 };
    expect(simulatedPower(pilot, 0.3, 150, sim)).toBe(simulatedPower(pilot, 0.3, 150, sim));
    // A function that ignored its seed would give one answer for all of these.
    const bySeed = [11, 12, 13, 14].map((seed) => simulatedPower(pilot, 0.3, 150, { ...sim, seed }));
    expect(new Set(bySeed).size).toBeGreaterThan(1);
  });
});

describe("power: the search over sizes", () => {
  const step = (crossing: number) => (n: number) => (n >= crossing ? 0.85 : 0.5);

  it("finds the crossing within 1% from a guess below or above it, simulating each size once", () => {
    for (const guess of [10, 900, 5000]) {
      const calls: number[] = [];
      const found = searchPerArm(
        (n) => {
          calls.push(n);
          return step(1234)(n);
        },
        0.8,
        guess,
        new Map(),
      );
      expect(found).toBeGreaterThanOrEqual(1234);
      expect(found).toBeLessThanOrEqual(Math.ceil(1234 * 1.01));
      expect(new Set(calls).size).toBe(calls.length);
    }
  });

  it("answers 2 when two participants already suffice, and null past the bound", () => {
    expect(searchPerArm(step(1), 0.8, 50, new Map())).toBe(2);
    expect(searchPerArm(step(RESAMPLING_MAX_PER_ARM + 1), 0.8, 50, new Map())).toBeNull();
  });
});
