/**
 * The fixed latency buckets of the response-latency read model (docs/results.md, "Latency parity").
 * A bucket is named by its lower bound in ms and holds [lower, lower + width):
 * - 5 ms wide below 1 s (a percentile is within 2.5 ms of the true value there, where arms are
 *   compared: a built-in recommender answers in a few ms, an external one in hundreds);
 * - 50 ms wide from 1 s to 10 s;
 * - 1 s wide from 10 s to the contract's largest `latency_ms`, 600 s.
 */
const STEPS = [
  { below: 1_000, width: 5 },
  { below: 10_000, width: 50 },
  { below: Number.POSITIVE_INFINITY, width: 1_000 },
] as const;

/** The largest `latency_ms` the contract accepts (schemas/src/events/payloads.ts). */
const LATENCY_MAX_MS = 600_000;

/** The bucket of a latency in ms (its lower bound), or null for what is not a latency. */
export function latencyBucket(ms: unknown): number | null {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > LATENCY_MAX_MS) return null;
  for (const step of STEPS) if (ms < step.below) return Math.floor(ms / step.width) * step.width;
  return null;
}

/** The width of the bucket whose lower bound is `bucket`. */
function widthOf(bucket: number): number {
  for (const step of STEPS) if (bucket < step.below) return step.width;
  return 1_000;
}

/**
 * The `q` quantile (0 < q <= 1) of a histogram, by nearest rank over the events: the middle of the
 * bucket that holds the event of rank ceil(q * n) (within half a bucket of the true value); null for an
 * empty histogram.
 */
export function quantileOf(histogram: ReadonlyMap<number, number>, q: number): number | null {
  const buckets = [...histogram.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [bucket, n] of buckets) {
    seen += n;
    if (seen >= rank) return bucket + widthOf(bucket) / 2;
  }
  return null;
}
