import type { Db } from "../db/db.ts";
import { type Histogram, merge } from "./latency.ts";
import { HEALTH_FAILURES, type HealthFailure } from "./recorder.ts";

export interface CallSums {
  calls: number;
  empty_results: number;
  failures: Record<HealthFailure, number>;
  latency: Histogram;
}

export const emptySums = (): CallSums => ({
  calls: 0,
  empty_results: 0,
  failures: Object.fromEntries(HEALTH_FAILURES.map((k) => [k, 0])) as Record<HealthFailure, number>,
  latency: {},
});

interface CallRow {
  experiment_id: string;
  recommender: string;
  surface: string;
  minute: Date;
  calls: number;
  empty_results: number;
  failures: Record<string, number> | string;
  latency: Histogram | string;
  last_failure: string | null;
}

const parsed = <T>(v: T | string): T => (typeof v === "string" ? (JSON.parse(v) as T) : v);

/** Recommender call records since `since`, filtered by recommender and/or experiment. */
export async function callRows(
  db: Db,
  where: { recommender?: string; experiment_id?: string },
  since: Date,
): Promise<CallRow[]> {
  const rows = (await db("recommender_calls")
    .where(where)
    .where("minute", ">=", since)
    .orderBy("minute")
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
    )) as CallRow[];
  return rows.map((r) => ({
    ...r,
    minute: new Date(r.minute),
    failures: parsed(r.failures),
    latency: parsed(r.latency),
  }));
}

/** Adds call records up. */
export function sumCalls(rows: readonly CallRow[]): CallSums {
  const out = emptySums();
  for (const r of rows) {
    out.calls += r.calls;
    out.empty_results += r.empty_results;
    for (const [k, n] of Object.entries(r.failures as Record<string, number>))
      if (k in out.failures) out.failures[k as HealthFailure] += n;
    merge(out.latency, r.latency as Histogram);
  }
  return out;
}

export const failureCount = (s: Pick<CallSums, "failures">): number =>
  Object.values(s.failures).reduce((a, b) => a + b, 0);
