import type { GeneratorResult, LoadCounters, Percentiles } from "./protocol.ts";

/** Kinds of failure kept as examples for the report (each with its count). */
const EXAMPLES = 5;

/** The value at or below which p percent of the sorted values lie (nearest rank); null for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

const tenth = (ms: number | null) => (ms === null ? 0 : Math.round(ms * 10) / 10);

/** p50, p95 and p99 of `values` (any order), rounded to 0.1 ms. */
export function percentilesOf(values: readonly number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  return {
    p50: tenth(percentile(sorted, 50)),
    p95: tenth(percentile(sorted, 95)),
    p99: tenth(percentile(sorted, 99)),
    count: sorted.length,
  };
}

/**
 * What a load run measures, in the generator's process: every request's endpoint, status and time (the
 * participant clients' observer), the batches and the event ids they acknowledged, and the lag samples.
 * A status of 0 is a request that got no answer.
 */
export class LoadStats {
  private readonly started = performance.now();
  private readonly latencies = new Map<string, number[]>();
  private readonly lagMs: number[] = [];
  private lagTimeouts = 0;
  /** Failure descriptions and how often each happened. */
  private readonly examples = new Map<string, number>();
  private pendingIds: string[] = [];
  private joined = 0;
  private requests = 0;
  private errors5xx = 0;
  private errors429 = 0;
  private errors4xx = 0;
  private errorsNetwork = 0;
  private batches = 0;
  private eventsAcknowledged = 0;
  private eventsRejected = 0;

  /** The participant clients' observer (an arrow, so it can be passed as it is). */
  readonly observe = (endpoint: string, status: number, ms: number): void => {
    this.requests += 1;
    if (status === 0) this.errorsNetwork += 1;
    else if (status >= 500) this.errors5xx += 1;
    else if (status === 429) this.errors429 += 1;
    else if (status >= 400) this.errors4xx += 1;
    else {
      const list = this.latencies.get(endpoint);
      if (list) list.push(ms);
      else this.latencies.set(endpoint, [ms]);
      return;
    }
    this.example(`${endpoint}: ${status === 0 ? "no answer" : `HTTP ${status}`}`);
  };

  joinedOne(): void {
    this.joined += 1;
  }

  /** A batch answered 202: the ids it acknowledged and how many events it had refused. */
  batch(acknowledged: readonly string[], rejected: number): void {
    this.batches += 1;
    this.eventsAcknowledged += acknowledged.length;
    this.eventsRejected += rejected;
    for (const id of acknowledged) this.pendingIds.push(id);
  }

  /** A lag sample; `reached` is false when the server gave up waiting (`X-Feedlab-Read-After: timeout`). */
  lag(ms: number, reached: boolean): void {
    this.lagMs.push(ms);
    if (!reached) this.lagTimeouts += 1;
  }

  /** A failure, counted under its description (the first few kinds are kept). */
  example(text: string): void {
    const seen = this.examples.get(text);
    if (seen !== undefined) this.examples.set(text, seen + 1);
    else if (this.examples.size < EXAMPLES) this.examples.set(text, 1);
  }

  /** The acknowledged ids since the last call. */
  takeAcknowledged(): string[] {
    const ids = this.pendingIds;
    this.pendingIds = [];
    return ids;
  }

  counters(): LoadCounters {
    return {
      elapsedS: (performance.now() - this.started) / 1000,
      joined: this.joined,
      requests: this.requests,
      errors5xx: this.errors5xx,
      errors429: this.errors429,
      errors4xx: this.errors4xx,
      errorsNetwork: this.errorsNetwork,
      batches: this.batches,
      eventsAcknowledged: this.eventsAcknowledged,
      eventsRejected: this.eventsRejected,
    };
  }

  result(): GeneratorResult {
    const latency: Record<string, Percentiles> = {};
    for (const endpoint of [...this.latencies.keys()].sort())
      latency[endpoint] = percentilesOf(this.latencies.get(endpoint) ?? []);
    const lag = Float64Array.from(this.lagMs).sort();
    return {
      counters: this.counters(),
      seconds: (performance.now() - this.started) / 1000,
      latency,
      lag: {
        p50: lag.length === 0 ? null : tenth(percentile(lag, 50)),
        p99: lag.length === 0 ? null : tenth(percentile(lag, 99)),
        samples: lag.length,
        timeouts: this.lagTimeouts,
      },
      examples: [...this.examples].map(([text, count]) => (count > 1 ? `${text} (${count} times)` : text)),
    };
  }
}
