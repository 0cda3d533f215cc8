import { mulberry32 } from "@feedlab/trainer";

/**
 * The inverse-probability-weighted mean of an arm under adaptive assignment (api.md "Assignment
 * (wave 4)": `ipw` on each `/stats` group). Thompson sampling sends more participants to the arm that
 * looks better so far, so an arm's plain mean over-weights the participants who joined while it was
 * favoured; weighting each by 1/probability of the arm they got undoes that.
 */

/** A mean with its 95% interval; all null without a participant, the interval null with one. */
export interface IpwEstimate {
  readonly value: number | null;
  readonly low: number | null;
  readonly high: number | null;
}

/** How many bootstrap resamples the interval takes (api.md: a seeded participant bootstrap). */
const BOOTSTRAP_RESAMPLES = 1000;

/**
 * The self-normalised (Hajek) mean Σ m_i/p_i / Σ 1/p_i. Self-normalised rather than Horvitz-Thompson's
 * Σ m_i/p_i / N: its weights sum to one, so it stays within the metric's range and is steadier when
 * a few participants carry small probabilities. Null without a participant.
 */
export function hajekMean(values: ArrayLike<number>, probabilities: ArrayLike<number>): number | null {
  let weighted = 0;
  let weights = 0;
  for (let i = 0; i < values.length; i++) {
    const w = 1 / (probabilities[i] as number);
    weighted += w * (values[i] as number);
    weights += w;
  }
  return values.length === 0 ? null : weighted / weights;
}

/** The q-quantile of sorted values, interpolating between neighbours (Hyndman and Fan's type 7). */
function quantile(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const below = Math.floor(at);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return lower + (at - below) * (upper - lower);
}

/**
 * The Hajek mean of participants' metric values, each with the probability (0 < p <= 1) of the arm
 * they got, and its 95% percentile bootstrap interval: `resamples` times, as many participants drawn
 * with replacement (a participant keeps their value and probability together, so the weights'
 * variability is in the interval), the 2.5% and 97.5% quantiles of the resampled means. The draws
 * come from `seed` alone, so the same participants give the same interval. With one participant
 * every resample is that participant: no interval (as /stats' rates, api.md).
 */
export function ipwEstimate(
  values: ArrayLike<number>,
  probabilities: ArrayLike<number>,
  seed: number,
  resamples = BOOTSTRAP_RESAMPLES,
): IpwEstimate {
  const value = hajekMean(values, probabilities);
  const n = values.length;
  if (value === null || n < 2) return { value, low: null, high: null };
  const weights = Float64Array.from({ length: n }, (_, i) => 1 / (probabilities[i] as number));
  const weighted = Float64Array.from({ length: n }, (_, i) => (weights[i] as number) * (values[i] as number));
  const next = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let top = 0;
    let bottom = 0;
    for (let k = 0; k < n; k++) {
      const j = Math.floor(next() * n);
      top += weighted[j] as number;
      bottom += weights[j] as number;
    }
    means[r] = top / bottom;
  }
  means.sort();
  return { value, low: quantile(means, 0.025), high: quantile(means, 0.975) };
}

/**
 * The bootstrap seed of an experiment's arm (its index in creation order): the experiment's seed and
 * the arm mixed (murmur3's fmix32), so two arms of the same size never draw the same resamples.
 */
export function armSeed(seed: number, arm: number): number {
  let h = (seed ^ Math.imul(arm + 1, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
