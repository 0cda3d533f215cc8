import type { GeneratorResult, LoadCounters } from "./protocol.ts";

/**
 * The last line of `feedlab simulate` (api.md, "Simulated participants"): the pinned fields first,
 * then what else the run measured. `lag_ms_p99` is null when no lag sample was answered.
 */
export interface LoadSummary {
  readonly participants: number;
  readonly requests: number;
  readonly errors_5xx: number;
  readonly errors_429: number;
  readonly events_acknowledged: number;
  readonly events_stored: number;
  readonly events_missing: number;
  readonly latency_ms: Record<string, { readonly p50: number; readonly p95: number; readonly p99: number }>;
  readonly lag_ms_p99: number | null;
  readonly duration_s: number;
  readonly requests_per_s: number;
  /** Other 4xx answers (the generator was refused something). */
  readonly errors_4xx: number;
  /** Requests with no answer: connection refused or reset, or none within the timeout. */
  readonly errors_network: number;
  /** Events a 202 named as refused (the contract's validation). */
  readonly events_rejected: number;
  /** Answered requests by endpoint, as `latency_ms` counts them. */
  readonly requests_by_endpoint: Record<string, number>;
}

/** What the export check found: how many acknowledged ids it holds, or why it could not be read. */
export interface StoredCheck {
  readonly stored: number;
  readonly error: string | null;
}

export function summarise(
  participants: number,
  result: GeneratorResult,
  acknowledged: number,
  check: StoredCheck,
): LoadSummary {
  const c: LoadCounters = result.counters;
  const latency: LoadSummary["latency_ms"] = {};
  const counts: Record<string, number> = {};
  for (const [endpoint, p] of Object.entries(result.latency)) {
    latency[endpoint] = { p50: p.p50, p95: p.p95, p99: p.p99 };
    counts[endpoint] = p.count;
  }
  const seconds = Math.max(result.seconds, 0.001);
  return {
    participants,
    requests: c.requests,
    errors_5xx: c.errors5xx,
    errors_429: c.errors429,
    events_acknowledged: acknowledged,
    events_stored: check.stored,
    events_missing: acknowledged - check.stored,
    latency_ms: latency,
    lag_ms_p99: result.lag.p99,
    duration_s: Math.round(seconds * 10) / 10,
    requests_per_s: Math.round((c.requests / seconds) * 10) / 10,
    errors_4xx: c.errors4xx,
    errors_network: c.errorsNetwork,
    events_rejected: c.eventsRejected,
    requests_by_endpoint: counts,
  };
}

/** What went wrong, one phrase each; empty when the run passed. */
export function failuresOf(s: LoadSummary): string[] {
  const out: string[] = [];
  if (s.events_missing > 0) out.push(`${s.events_missing} acknowledged events missing from the export`);
  if (s.errors_5xx > 0) out.push(`${s.errors_5xx} answers 5xx`);
  if (s.errors_429 > 0) out.push(`${s.errors_429} answers 429`);
  if (s.errors_4xx > 0) out.push(`${s.errors_4xx} other 4xx answers`);
  if (s.errors_network > 0) out.push(`${s.errors_network} requests without an answer`);
  if (s.events_rejected > 0) out.push(`${s.events_rejected} events refused`);
  return out;
}

/** 0 when every acknowledged event is stored and every request was answered without an error; else 1. */
export const exitCodeOf = (s: LoadSummary): 0 | 1 => (failuresOf(s).length === 0 ? 0 : 1);

const n = (x: number) => x.toLocaleString("en-US");
const ms = (x: number | null) => (x === null ? "-" : x.toFixed(1));

/** The human-readable report printed before the JSON line. */
export function reportLines(s: LoadSummary, result: GeneratorResult, check: StoredCheck): string[] {
  const width = Math.max(24, ...Object.keys(s.latency_ms).map((e) => e.length));
  const lines = [
    `Requests: ${n(s.requests)} in ${s.duration_s} s (${s.requests_per_s}/s); errors: ${n(s.errors_5xx)} 5xx, ${n(s.errors_429)} 429, ${n(s.errors_4xx)} other 4xx, ${n(s.errors_network)} without an answer`,
    `Events: ${n(s.events_acknowledged)} acknowledged in ${n(result.counters.batches)} batches, ${n(s.events_stored)} stored, ${n(s.events_missing)} missing${s.events_rejected > 0 ? `, ${n(s.events_rejected)} refused` : ""}`,
  ];
  if (check.error !== null) lines.push(`  The events export could not be read: ${check.error}`);
  lines.push(
    `${"Latency (ms)".padEnd(width + 2)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"p99".padStart(7)} ${"requests".padStart(9)}`,
  );
  for (const [endpoint, p] of Object.entries(result.latency))
    lines.push(
      `  ${endpoint.padEnd(width)} ${ms(p.p50).padStart(7)} ${ms(p.p95).padStart(7)} ${ms(p.p99).padStart(7)} ${n(p.count).padStart(9)}`,
    );
  const lag = result.lag;
  lines.push(
    lag.samples === 0
      ? "Lag: no sample answered"
      : `Lag (a batch's 202 to a feed request with after=<its position>): p50 ${ms(lag.p50)} ms, p99 ${ms(lag.p99)} ms (${n(lag.samples)} samples${lag.timeouts > 0 ? `, ${n(lag.timeouts)} of them not reached within the server's wait` : ""})`,
  );
  for (const e of result.examples) lines.push(`  e.g. ${e}`);
  const failures = failuresOf(s);
  lines.push(failures.length === 0 ? "Result: passed" : `Result: FAILED: ${failures.join("; ")}`);
  return lines;
}

/**
 * What `feedlab simulate` says when a join is answered 429: the deployment limits joins per client
 * address, every load participant joins from this one, so the 429s would measure the limit and not the
 * deployment; the setting to use for a load test.
 */
export function joinLimitMessage(participants: number, joined: number, retryAfter: string | null): string {
  return [
    `Stopped: the deployment refused a join with 429 after ${joined} of ${participants} participants had joined${retryAfter === null ? "" : ` (Retry-After: ${retryAfter} s)`}.`,
    "It limits the joins one client address may make per minute (FEEDLAB_JOIN_RATE_LIMIT, default 120), and every",
    "participant of a load test joins from this machine's address: its 429s would measure that limit, not the deployment.",
    `For the load test, start the deployment with FEEDLAB_JOIN_RATE_LIMIT=${participants} or more (or 0: no limit), then set it back.`,
  ].join("\n");
}
