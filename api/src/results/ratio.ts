import type { RateSums } from "@feedlab/projector";

/** One participant's numerator and denominator (clicks and impressions, say). */
export interface Cluster {
  readonly y: number;
  readonly x: number;
}

/** A ratio with its 95% interval; null parts where they are undefined. */
export interface RateEstimate {
  readonly value: number | null;
  readonly low: number | null;
  readonly high: number | null;
}

const Z95 = 1.959963984540054;

/**
 * The ratio of sums Σy / Σx over participants, with a 95% interval that treats each participant as a
 * cluster: a participant's events are not independent, so the variance comes from the spread of the
 * participants' residuals y_i - R x_i (the delta method for a ratio of means, the cluster-robust
 * "sandwich" variance), with the small-sample factor n / (n - 1):
 *
 *   Var(R) ≈ n / (n - 1) · Σ (y_i - R x_i)² / (Σ x_i)²
 *
 * Deng, Knoblich and Lu, "Applying the Delta Method in Metric Analytics", KDD 2018, section 3. The
 * interval is clipped at 0 (no rate is negative) and, for a rate of at most 1 (a share: completions
 * of plays), at 1. With no denominator the rate is null; with one participant the interval is.
 */
export function clusteredRatio(clusters: readonly Cluster[]): RateEstimate {
  const sums: ArmSums = { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 };
  for (const { x, y } of clusters) {
    if (x === 0 && y === 0) continue;
    Object.assign(sums, {
      n: sums.n + 1,
      x: sums.x + x,
      y: sums.y + y,
      xx: sums.xx + x * x,
      yy: sums.yy + y * y,
      xy: sums.xy + x * y,
    });
  }
  return rateFromSums(sums);
}

/** Sums over the participants (clusters) with data: what the database sums per arm (evaluationSums). */
export type ArmSums = RateSums;

/**
 * The clustered ratio from sums: R = Σy/Σx, Var(R) = n/(n - 1) · Σ(y_i - R x_i)² / (Σx)², with
 * Σ(y_i - R x_i)² = Σy² - 2R Σxy + R² Σx² (never below 0: rounding). Null without a denominator or
 * with fewer than 2 participants.
 */
export function ratioFromSums(s: ArmSums): { value: number; variance: number | null } | null {
  if (s.x <= 0) return null;
  const r = s.y / s.x;
  if (s.n < 2) return { value: r, variance: null };
  const squares = Math.max(0, s.yy - 2 * r * s.xy + r * r * s.xx);
  return { value: r, variance: ((s.n / (s.n - 1)) * squares) / (s.x * s.x) };
}

/** clusteredRatio from sums: the ratio and its 95% interval, clipped as clusteredRatio says. */
export function rateFromSums(s: ArmSums): RateEstimate {
  const ratio = ratioFromSums(s);
  if (ratio === null) return { value: null, low: null, high: null };
  if (ratio.variance === null) return { value: ratio.value, low: null, high: null };
  const se = Math.sqrt(ratio.variance);
  const high = ratio.value + Z95 * se;
  return {
    value: ratio.value,
    low: Math.max(0, ratio.value - Z95 * se),
    high: ratio.value <= 1 ? Math.min(1, high) : high,
  };
}
