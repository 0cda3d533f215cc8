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
  const withData = clusters.filter((c) => c.x > 0 || c.y > 0);
  const sumX = withData.reduce((s, c) => s + c.x, 0);
  const sumY = withData.reduce((s, c) => s + c.y, 0);
  if (sumX === 0) return { value: null, low: null, high: null };
  const ratio = sumY / sumX;
  const n = withData.length;
  if (n < 2) return { value: ratio, low: null, high: null };
  const squares = withData.reduce((s, c) => s + (c.y - ratio * c.x) ** 2, 0);
  const se = Math.sqrt(((n / (n - 1)) * squares) / sumX ** 2);
  const high = ratio + Z95 * se;
  return { value: ratio, low: Math.max(0, ratio - Z95 * se), high: ratio <= 1 ? Math.min(1, high) : high };
}
