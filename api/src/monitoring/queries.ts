import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import { HEALTH_FAILURES, type HealthFailure } from "../recommenders/external-http/failures.ts";
import { type Histogram, merge } from "./latency.ts";

/** Records are read for this long back. */
const WINDOW_MS = 24 * 3600_000;

/** The start of the window the monitoring reads: the last 24 hours. */
export const windowStart = (now: Date): Date => new Date(now.getTime() - WINDOW_MS);

/** The counts of recommender calls that add up across minutes, processes and flushes. */
export interface CallCounts {
  calls: number;
  empty_results: number;
  failures: Partial<Record<HealthFailure, number>>;
  latency: Histogram;
}

/** One recommender's calls in one minute (of an experiment and page), as recorded. */
export interface CallRecord extends CallCounts {
  readonly experiment_id: string;
  readonly recommender: string;
  readonly surface: string;
  readonly minute: string;
  last_failure: string | null;
}

/** Adds `from`'s counts to `into`. */
export function addCalls(into: CallCounts, from: CallCounts): void {
  into.calls += from.calls;
  into.empty_results += from.empty_results;
  for (const [k, n] of Object.entries(from.failures))
    into.failures[k as HealthFailure] = (into.failures[k as HealthFailure] ?? 0) + (n ?? 0);
  merge(into.latency, from.latency);
}

/** The key of a record: one per experiment, recommender, page and minute. */
export const callKey = (r: Pick<CallRecord, "experiment_id" | "recommender" | "surface" | "minute">) =>
  `${r.experiment_id}\u0000${r.recommender}\u0000${r.surface}\u0000${r.minute}`;

/**
 * Recommender call records since `since`, filtered by recommender and/or experiment, one per minute
 * (each process appends a row per flush: they are added up here), oldest first.
 */
export async function callRecords(
  db: Db,
  where: { recommender?: string; experiment_id?: string },
  since: Date,
): Promise<CallRecord[]> {
  const rows = (await db("recommender_calls")
    .where(where)
    .where("minute", ">=", since)
    .orderBy("minute")
    .orderBy("id")
    .select(
      "experiment_id",
      "recommender",
      "surface",
      "minute",
      "calls",
      "empty_results",
      "failures",
      "latency",
      "last_failure",
    )) as (Omit<CallRecord, "minute" | "failures" | "latency"> & {
    minute: Date;
    failures: unknown;
    latency: unknown;
  })[];
  const byMinute = new Map<string, CallRecord>();
  for (const r of rows) {
    const record: CallRecord = {
      ...r,
      minute: new Date(r.minute).toISOString(),
      failures: json<CallCounts["failures"]>(r.failures, {}),
      latency: json<Histogram>(r.latency, {}),
    };
    const into = byMinute.get(callKey(record));
    if (!into) byMinute.set(callKey(record), record);
    else {
      addCalls(into, record);
      into.last_failure = record.last_failure ?? into.last_failure;
    }
  }
  return [...byMinute.values()];
}

/** Call records added up, with every failure kind present. */
export function sumCalls(
  records: readonly CallCounts[],
): CallCounts & { failures: Record<HealthFailure, number> } {
  const out = {
    calls: 0,
    empty_results: 0,
    failures: Object.fromEntries(HEALTH_FAILURES.map((k) => [k, 0])) as Record<HealthFailure, number>,
    latency: {},
  };
  for (const r of records) addCalls(out, r);
  return out;
}

export const failureCount = (c: Pick<CallCounts, "failures">): number =>
  Object.values(c.failures).reduce((a: number, b) => a + (b ?? 0), 0);

/** The experiment's refused events since `since`, added up per minute and error code. */
export async function rejectionsSince(
  db: Db,
  experimentId: string,
  since: Date,
): Promise<{ minute: Date; code: string; n: number | string }[]> {
  return (await db("rejected_events")
    .where({ experiment_id: experimentId })
    .where("minute", ">=", since)
    .groupBy("minute", "code")
    .select("minute", "code", db.raw("sum(count) as n"))) as {
    minute: Date;
    code: string;
    n: number | string;
  }[];
}
