import { mulberry32 } from "@feedlab/trainer";
import { normalQuantile } from "./power.closed-form.ts";
import { ratioFromSums } from "./ratio.ts";

/**
 * Power by resampling a pilot's participants (issue 37). Each participant is one cluster (y, x): the
 * rate's numerator and denominator, as /stats counts them. docs/power.md explains each step.
 */

/** The pilot as two parallel arrays: participant i's numerator ys[i] over denominator xs[i]. */
export interface Pilot {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
}

/** What the pilot says about the rate: its pooled value, the clustering and the participants' sizes. */
export interface PilotEstimate {
  /** Σy / Σx, the rate as /stats computes it. */
  readonly rate: number;
  /** ANOVA estimate of the intra-participant correlation, clipped to [0, 1]. */
  readonly icc: number;
  /** Mean denominator per participant, M. */
  readonly perParticipant: number;
  /** Coefficient of variation of the participants' denominators. */
  readonly cv: number;
}

/**
 * The pooled rate, the mean size and the ANOVA estimator of the intra-cluster correlation for binary
 * outcomes in clusters of unequal sizes (Ridout, Demétrio and Firth, Biometrics 1999, estimator "A"):
 *   MSB = Σ m_i (p_i - p)² / (k - 1),  MSW = Σ m_i p_i (1 - p_i) / (N - k),
 *   m0 = (N - Σ m_i² / N) / (k - 1),   icc = (MSB - MSW) / (MSB + (m0 - 1) MSW).
 * Participants without a denominator carry no information about it and are left out; a share above 1
 * (a click without its impression) counts as 1 in the within-participant term.
 */
export function estimatePilot({ xs, ys }: Pilot): PilotEstimate {
  let k = 0;
  let sumM = 0;
  let sumY = 0;
  let sumM2 = 0;
  for (let i = 0; i < xs.length; i++) {
    const m = xs[i] as number;
    if (m <= 0) continue;
    k++;
    sumM += m;
    sumM2 += m * m;
    sumY += ys[i] as number;
  }
  if (k === 0 || sumM === 0) return { rate: 0, icc: 0, perParticipant: 0, cv: 0 };
  const rate = sumY / sumM;
  const mean = sumM / k;
  const cv = Math.sqrt(Math.max(0, sumM2 / k - mean * mean)) / mean;
  if (k < 2 || sumM === k) return { rate, icc: 0, perParticipant: mean, cv };
  let between = 0;
  let within = 0;
  for (let i = 0; i < xs.length; i++) {
    const m = xs[i] as number;
    if (m <= 0) continue;
    const p = Math.min(1, (ys[i] as number) / m);
    between += m * (p - rate) ** 2;
    within += m * p * (1 - p);
  }
  const msb = between / (k - 1);
  const msw = within / (sumM - k);
  const m0 = (sumM - sumM2 / sumM) / (k - 1);
  const denominator = msb + (m0 - 1) * msw;
  const icc = denominator > 0 ? Math.min(1, Math.max(0, (msb - msw) / denominator)) : 0;
  return { rate, icc, perParticipant: mean, cv };
}

/**
 * A binomial draw by inversion, given P(0) = (1 - p)^trials (precomputed per participant); the normal
 * approximation past 40 expected successes, to stay fast.
 */
function binomial(trials: number, p: number, p0: number, next: () => number): number {
  if (trials <= 0 || p <= 0) return 0;
  if (p >= 1) return trials;
  const u = next();
  if (u <= p0) return 0;
  const mean = trials * p;
  if (mean > 40) {
    const z = Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * next());
    return Math.min(trials, Math.max(0, Math.round(mean + z * Math.sqrt(mean * (1 - p)))));
  }
  const odds = p / (1 - p);
  let prob = p0;
  let cdf = p0;
  let k = 0;
  while (u > cdf && k < trials) {
    prob *= ((trials - k) / (k + 1)) * odds;
    k++;
    cdf += prob;
  }
  return k;
}

/** A 32-bit seed for stream (resample, arm) of a run: the run's seed mixed (murmur3's fmix32). */
function streamSeed(seed: number, resample: number, arm: number): number {
  let h = (seed ^ Math.imul(resample + 1, 0x9e3779b1) ^ Math.imul(arm + 1, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** How a simulated study is run. */
export interface Simulation {
  readonly effect: number;
  readonly alpha: number;
  readonly resamples: number;
  readonly seed: number;
}

/**
 * The simulated power with n participants per arm: in each of `resamples` studies, two arms of n
 * participants drawn with replacement from the pilot; the treatment arm's participants each turn a
 * share q = effect / (1 - rate) of their non-events into events (binomial augmentation), which moves
 * the expected rate from `rate` to rate + effect and keeps each participant's clustering; then the
 * difference of the arms' clustered ratios over its delta-method standard error, rejected when
 * |z| > z_{1-α/2}. Resample r's arms draw from their own seeded streams, so a larger n reuses the
 * smaller n's first draws (common random numbers: the search over n sees a smooth curve).
 */
export function simulatedPower(pilot: Pilot, rate: number, n: number, sim: Simulation): number {
  const { xs, ys } = pilot;
  const size = xs.length;
  const q = rate < 1 ? Math.min(1, sim.effect / (1 - rate)) : 1;
  const critical = normalQuantile(1 - sim.alpha / 2);
  // Each participant's non-events (the trials of its augmentation) and their chance of no new event.
  const trials = new Float64Array(size);
  const none = new Float64Array(size);
  for (let j = 0; j < size; j++) {
    trials[j] = Math.max(0, (xs[j] as number) - (ys[j] as number));
    none[j] = (1 - q) ** (trials[j] as number);
  }
  let rejections = 0;
  for (let r = 0; r < sim.resamples; r++) {
    const control = mulberry32(streamSeed(sim.seed, r, 0));
    let cx = 0;
    let cy = 0;
    let cxx = 0;
    let cyy = 0;
    let cxy = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(control() * size);
      const x = xs[j] as number;
      const y = ys[j] as number;
      cx += x;
      cy += y;
      cxx += x * x;
      cyy += y * y;
      cxy += x * y;
    }
    const treated = mulberry32(streamSeed(sim.seed, r, 1));
    let tx = 0;
    let ty = 0;
    let txx = 0;
    let tyy = 0;
    let txy = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(treated() * size);
      const x = xs[j] as number;
      const base = ys[j] as number;
      const y = base + binomial(trials[j] as number, q, none[j] as number, treated);
      tx += x;
      ty += y;
      txx += x * x;
      tyy += y * y;
      txy += x * y;
    }
    const a = ratioFromSums({ n, x: cx, y: cy, xx: cxx, yy: cyy, xy: cxy });
    const b = ratioFromSums({ n, x: tx, y: ty, xx: txx, yy: tyy, xy: txy });
    if (a?.variance == null || b?.variance == null) continue;
    const se = Math.sqrt(a.variance + b.variance);
    const diff = b.value - a.value;
    if (se > 0 ? Math.abs(diff) / se > critical : diff !== 0) rejections++;
  }
  return rejections / sim.resamples;
}

/** The largest size per arm the search simulates (a bound on the work of one request). */
export const RESAMPLING_MAX_PER_ARM = 20_000;

/**
 * The smallest n per arm whose simulated power reaches `target`, searched from the closed form's
 * guess: the bracket widens by half (down or up) until it holds the crossing, then bisects until it
 * is within 1% (or 1 participant). Every size is simulated once (cached in `cache`). Null when even
 * RESAMPLING_MAX_PER_ARM falls short.
 */
export function searchPerArm(
  power: (n: number) => number,
  target: number,
  guess: number,
  cache: Map<number, number>,
): number | null {
  const at = (n: number): number => {
    const known = cache.get(n);
    if (known !== undefined) return known;
    const value = power(n);
    cache.set(n, value);
    return value;
  };
  let lo: number;
  let hi: number;
  const start = Math.min(RESAMPLING_MAX_PER_ARM, Math.max(2, Math.round(guess)));
  if (at(start) >= target) {
    hi = start;
    lo = hi;
    // 1. Widen downwards until a size falls short (or 2 already reaches the target).
    while (at(lo) >= target) {
      if (lo === 2) return 2;
      hi = lo;
      lo = Math.max(2, Math.floor(lo / 1.5));
    }
  } else {
    lo = start;
    hi = lo;
    // 1. Widen upwards until a size reaches the target (or the bound does not).
    while (at(hi) < target) {
      if (hi === RESAMPLING_MAX_PER_ARM) return null;
      lo = hi;
      hi = Math.min(RESAMPLING_MAX_PER_ARM, Math.ceil(hi * 1.5));
    }
  }
  // 2. Bisect: at(lo) < target <= at(hi).
  while (hi - lo > Math.max(1, Math.floor(hi * 0.01))) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** One resampling request: the pilot, its rate, the simulation, and the sizes to answer for. */
export interface ResamplingJob {
  readonly pilot: Pilot;
  readonly rate: number;
  readonly sim: Simulation;
  /** The power asked for. */
  readonly target: number;
  /** Where the search starts: the closed form's n with the pilot's estimates. */
  readonly guess: number;
  /** The smallest arm's participants now, or null when there is no power to give for it. */
  readonly now: number | null;
}

/** What resampling answers: the size needed, the power now, and every size it simulated. */
export interface ResamplingAnswer {
  readonly needed: number | null;
  readonly powerNow: number | null;
  readonly simulated: { participants_per_arm: number; power: number }[];
}

/** The search and the power now, sharing one cache of simulated sizes (power.worker.ts runs it). */
export function resample(job: ResamplingJob): ResamplingAnswer {
  const cache = new Map<number, number>();
  const power = (n: number) => simulatedPower(job.pilot, job.rate, n, job.sim);
  const needed = searchPerArm(power, job.target, job.guess, cache);
  let powerNow: number | null = null;
  if (job.now !== null) {
    powerNow = cache.get(job.now) ?? power(job.now);
    cache.set(job.now, powerNow);
  }
  const simulated = [...cache.entries()]
    .map(([n, p]) => ({ participants_per_arm: n, power: p }))
    .sort((a, b) => a.participants_per_arm - b.participants_per_arm);
  return { needed, powerNow, simulated };
}
