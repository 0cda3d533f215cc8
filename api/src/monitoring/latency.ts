/**
 * Latency histograms with log-spaced buckets: bucket b holds latencies in [GROWTH^(b-1), GROWTH^b)
 * milliseconds (bucket 0: under 1 ms). Sparse `{bucket: count}` objects add up across processes and
 * minutes, and a quantile read from them is within 10% of the true value.
 */
const GROWTH = 1.1;
const LAST = 200; // 1.1^200 ms is about 6 years: every real latency fits.

export type Histogram = Record<string, number>;

function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(LAST, Math.floor(Math.log(ms) / Math.log(GROWTH)) + 1);
}

export function addTo(histogram: Histogram, ms: number): void {
  const b = String(bucketOf(ms));
  histogram[b] = (histogram[b] ?? 0) + 1;
}

export function merge(into: Histogram, other: Readonly<Histogram>): void {
  for (const [b, n] of Object.entries(other)) into[b] = (into[b] ?? 0) + n;
}

/** The q-quantile (0..1) in ms, rounded to 0.1 ms: the upper edge of the bucket it falls in; null when empty. */
export function quantile(histogram: Readonly<Histogram>, q: number): number | null {
  const buckets = Object.entries(histogram)
    .map(([b, n]) => [Number(b), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [b, n] of buckets) {
    seen += n;
    if (seen >= rank) return Math.round(GROWTH ** b * 10) / 10;
  }
  return null;
}
