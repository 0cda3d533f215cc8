import { mulberry32 } from "@feedlab/trainer";

/**
 * A seeded source of decisions for simulated participants (issue 36). The generator is the trainer's
 * mulberry32, so one PRNG serves the whole code base; this file adds the draws a behaviour model needs.
 *
 * Reproducibility: the same seed and the same sequence of calls give the same values on every platform.
 * `fork(label)` derives an independent stream, so one kind of decision (consent, taste, surveys) does not
 * shift when another kind is asked for more or less often (the feed an arm shows changes how many cards
 * are judged, never the participant's taste or survey answers).
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** A whole number in [lo, hi], both included. */
  int(lo: number, hi: number): number;
  /** true with probability p (clamped to [0, 1]). */
  bernoulli(p: number): boolean;
  /** One item, each as likely; throws on an empty list (a caller's mistake, not data). */
  pick<T>(items: readonly T[]): T;
  /** One item, chosen in proportion to its weight (negative weights count as 0); uniform when all are 0. */
  pickWeighted<T>(items: readonly T[], weight: (item: T) => number): T;
  /** k distinct items (all when k >= length), in the order drawn. */
  sample<T>(items: readonly T[], k: number): T[];
  /** Normal draw (Box-Muller). */
  normal(mean: number, sd: number): number;
  /** Log-normal draw around a median: for durations, which are positive and right-skewed. */
  logNormal(median: number, sigma: number): number;
  /**
   * A share in (0, 1) with the given mean; `concentration` (a + b of the Beta) sets how tightly the
   * draws gather around the mean (2: spread over the whole range, 50: close to the mean).
   */
  beta(mean: number, concentration: number): number;
  /** An independent stream named by `label`, a pure function of this stream's seed and the label. */
  fork(label: string): Random;
}

/** The item at `i`, for indices the caller has bounded; throws rather than returning undefined. */
export function itemAt<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new RangeError(`index ${i} outside a list of ${items.length}`);
  return item;
}

/** FNV-1a over the label, mixed with the parent seed: distinct labels give unrelated child seeds. */
function childSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // A final avalanche (murmur3's fmix32), so labels differing in one character still land far apart.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** A Random seeded with a 32-bit integer (other numbers are truncated to their low 32 bits). */
export function createRandom(seed: number): Random {
  const base = seed >>> 0;
  const next = mulberry32(base);
  const clamp01 = (p: number) => Math.min(1, Math.max(0, p));

  const normal = (mean: number, sd: number): number => {
    // 1 - next() is in (0, 1], so the logarithm stays finite.
    const u = 1 - next();
    const v = next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };

  // Marsaglia-Tsang; a shape below 1 is drawn at shape + 1 and scaled by U^(1/shape).
  const gamma = (shape: number): number => {
    if (shape < 1) return gamma(shape + 1) * (1 - next()) ** (1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = normal(0, 1);
      const v = (1 + c * x) ** 3;
      if (v <= 0) continue;
      const u = 1 - next();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
    }
  };

  const random: Random = {
    next,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    bernoulli: (p) => next() < clamp01(p),
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return itemAt(items, Math.floor(next() * items.length));
    },
    pickWeighted: (items, weight) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      const weights = items.map((item) => Math.max(0, weight(item)));
      const total = weights.reduce((s, w) => s + w, 0);
      if (total <= 0) return random.pick(items);
      let x = next() * total;
      for (const [i, w] of weights.entries()) {
        x -= w;
        if (x < 0) return itemAt(items, i);
      }
      // Rounding can leave x at a hair above 0: the last item with weight takes it.
      return itemAt(
        items,
        weights.findLastIndex((w) => w > 0),
      );
    },
    sample: (items, k) => {
      const pool = [...items];
      const out: typeof pool = [];
      while (out.length < k && pool.length > 0) {
        const [item] = pool.splice(Math.floor(next() * pool.length), 1);
        if (item !== undefined) out.push(item);
      }
      return out;
    },
    normal,
    logNormal: (median, sigma) => median * Math.exp(normal(0, sigma)),
    beta: (mean, concentration) => {
      const m = Math.min(1 - 1e-6, Math.max(1e-6, mean));
      const a = gamma(m * concentration);
      const b = gamma((1 - m) * concentration);
      return a + b > 0 ? a / (a + b) : m;
    },
    fork: (label) => createRandom(childSeed(base, label)),
  };
  return random;
}
