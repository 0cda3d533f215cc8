import { minuteOf } from "@feedlab/projector";
import type { Db } from "@feedlab/sql";
import type { Logger } from "pino";
import type { CallFailed, PageServed } from "../recommenders/calls.ts";
import { healthFailureOf } from "../recommenders/external-http/failures.ts";
import { addTo } from "./latency.ts";
import { addCalls, type CallRecord, callKey } from "./queries.ts";

interface RejectionBucket {
  experiment_id: string;
  minute: string;
  code: string;
  count: number;
}

export interface RecorderDeps {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  /** How often sums are written (default 5 s); `flush()` writes at once. */
  readonly flushMs?: number;
}

/** Records are read for the last 24 hours; older ones are deleted after a week. */
const KEEP_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/**
 * What a running study's monitoring reads besides events: every recommendation page served (its
 * recommender, latency, and whether it came back empty), every external failure by kind, and every
 * event the intake rejected. Sums are kept in memory per minute and appended to the database every
 * few seconds, so serving a page never waits for a write.
 */
export function createMonitoringRecorder({ db, now, log, flushMs = 5000 }: RecorderDeps) {
  let calls = new Map<string, CallRecord>();
  let rejections = new Map<string, RejectionBucket>();
  let flushing: Promise<void> = Promise.resolve();
  let prunedAt = 0;

  /** The sums of a recommender's calls in a minute (this minute unless given), made on first use. */
  function callBucket(
    experiment_id: string,
    recommender: string,
    surface: string,
    minute = minuteOf(now().toISOString()),
  ): CallRecord {
    const id = { experiment_id, recommender, surface, minute };
    let bucket = calls.get(callKey(id));
    if (!bucket) {
      bucket = { ...id, calls: 0, empty_results: 0, failures: {}, latency: {}, last_failure: null };
      calls.set(callKey(id), bucket);
    }
    return bucket;
  }

  async function prune(): Promise<void> {
    const at = now().getTime();
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    const before = new Date(at - KEEP_MS);
    try {
      await db("recommender_calls").where("minute", "<", before).delete();
      await db("rejected_events").where("minute", "<", before).delete();
    } catch (err) {
      log.warn({ err }, "old monitoring records not deleted; trying again in an hour");
    }
  }

  async function write(): Promise<void> {
    await prune();
    const callRows = [...calls.values()];
    const rejectionRows = [...rejections.values()];
    calls = new Map();
    rejections = new Map();
    if (callRows.length === 0 && rejectionRows.length === 0) return;
    try {
      await db.transaction(async (trx) => {
        if (callRows.length > 0)
          await trx("recommender_calls").insert(
            callRows.map((b) => ({
              ...b,
              failures: JSON.stringify(b.failures),
              latency: JSON.stringify(b.latency),
            })),
          );
        if (rejectionRows.length > 0) await trx("rejected_events").insert(rejectionRows);
      });
    } catch (err) {
      // Put the sums back, in their own minutes: the next flush tries again.
      for (const b of callRows) {
        const into = callBucket(b.experiment_id, b.recommender, b.surface, b.minute);
        addCalls(into, b);
        into.last_failure ??= b.last_failure;
      }
      for (const r of rejectionRows) rejected(r.experiment_id, r.code, r.count, r.minute);
      log.warn({ err }, "monitoring records not written; retrying with the next flush");
    }
  }

  function rejected(experimentId: string, code: string, n: number, minute = minuteOf(now().toISOString())) {
    const key = `${experimentId}\u0000${code}\u0000${minute}`;
    const bucket = rejections.get(key) ?? { experiment_id: experimentId, minute, code, count: 0 };
    bucket.count += n;
    rejections.set(key, bucket);
  }

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  /** Writes what is summed so far; calls made while a write runs wait for it. */
  function flush(): Promise<void> {
    flushing = flushing.then(write);
    return flushing;
  }

  return {
    /** A recommendation page: its recommender's latency and whether nothing was left to show. */
    page(p: PageServed) {
      const b = callBucket(p.experimentId, p.recommender, p.surface);
      b.calls++;
      if (p.empty) b.empty_results++;
      addTo(b.latency, p.ms);
    },
    /** An external recommender's call failed (it served an empty list). */
    failure(p: CallFailed) {
      const b = callBucket(p.experimentId, p.recommender, p.surface);
      const kind = healthFailureOf(p.kind);
      b.failures[kind] = (b.failures[kind] ?? 0) + 1;
      b.last_failure = `${kind}: ${p.message}`.slice(0, 500);
    },
    /** Events of a batch the intake rejected, by code. */
    rejected: (experimentId: string, code: string, n: number) => rejected(experimentId, code, n),
    flush,
    /** Stops the timer and writes what is left. */
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type MonitoringRecorder = ReturnType<typeof createMonitoringRecorder>;
