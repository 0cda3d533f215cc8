import {
  createEventValidator,
  type EventLog,
  encodePosition,
  LogUnavailableError,
  type StampContext,
  stamp,
} from "@feedlab/ingest";
import type { EventRejection, LoggedEvent } from "@feedlab/schemas";
import type { Counter } from "prom-client";
import type { ServiceDeps } from "../deps.ts";
import { forbidden, HttpError, notFound } from "../http/errors.ts";
import { TtlCache } from "../system/ttl-cache.ts";

export interface IntakeResult {
  readonly accepted: number;
  readonly rejected: EventRejection[];
  readonly position: string;
}

export interface EventsServiceDeps extends ServiceDeps {
  readonly log: EventLog;
  readonly counters?: { accepted: Counter<"type">; rejected: Counter<"code"> };
}

/**
 * Batch intake: check each event against the contract, stamp the valid ones with who sent them and
 * the configuration in force, and append them to the log. Valid events are kept even when others
 * in the batch are rejected; the answer comes once the log has them durably.
 */
/**
 * How long a session's stamping context (its group's recommender keys) is remembered in-process.
 * A group change here clears it at once; other API processes stamp the new keys within this time.
 */
const CONTEXT_CACHE_MS = 1000;

export function createEventsService({ db, now, log, counters }: EventsServiceDeps) {
  const check = createEventValidator();
  const contexts = new TtlCache<StampContext & { owner: string }>({ ttlMs: CONTEXT_CACHE_MS, max: 100_000 });

  /** The stamping context of a session, which must be the participant's own. */
  async function contextOf(sessionId: string, userId: string): Promise<StampContext> {
    let ctx = contexts.get(sessionId);
    if (!ctx) {
      ctx = await lookup(sessionId);
      contexts.set(sessionId, ctx);
    }
    if (ctx.owner !== userId)
      throw forbidden("foreign_session", "This session belongs to another participant.");
    const { owner: _owner, ...stampContext } = ctx;
    return stampContext;
  }

  async function lookup(sessionId: string): Promise<StampContext & { owner: string }> {
    const row = await db("sessions as s")
      .join("users as u", "u.id", "s.user_id")
      .join("groups as g", "g.id", "u.group_id")
      .where("s.id", sessionId)
      .first<{
        user_id: string;
        login_id: string;
        experiment_id: string;
        group_id: string;
        algorithm_feed: string;
        algorithm_watch: string;
      }>("s.user_id", "u.login_id", "u.experiment_id", "u.group_id", "g.algorithm_feed", "g.algorithm_watch");
    if (!row) throw notFound("session");
    return { session_id: sessionId, owner: row.user_id, ...row };
  }

  return {
    /** Forgets cached stamping contexts (called when a group's configuration changes). */
    invalidateContexts: () => contexts.clear(),

    async ingest(userId: string, sessionId: string, raw: readonly unknown[]): Promise<IntakeResult> {
      const ctx = await contextOf(sessionId, userId);
      const receivedAt = now();
      const valid: LoggedEvent[] = [];
      const rejected: EventRejection[] = [];
      raw.forEach((item, index) => {
        const r = check(item);
        if (r.ok) valid.push(stamp(r.event, ctx, receivedAt));
        else rejected.push({ index, ...r.rejection });
      });
      let appended: Awaited<ReturnType<EventLog["append"]>>;
      try {
        appended = valid.length > 0 ? await log.append(valid) : { position: new Map(), appended: 0 };
      } catch (err) {
        if (err instanceof LogUnavailableError) {
          throw new HttpError(
            503,
            "event_log_unavailable",
            "The event log is unavailable; retry the same batch shortly.",
            undefined,
            {
              "Retry-After": "2",
            },
          );
        }
        throw err;
      }
      if (counters) count(counters, valid, rejected);
      return { accepted: valid.length, rejected, position: encodePosition(appended.position) };
    },
  };
}

function count(
  counters: NonNullable<EventsServiceDeps["counters"]>,
  valid: readonly LoggedEvent[],
  rejected: readonly EventRejection[],
) {
  const byType = new Map<string, number>();
  for (const e of valid) byType.set(e.event_type, (byType.get(e.event_type) ?? 0) + 1);
  for (const [type, n] of byType) counters.accepted.inc({ type }, n);
  const byCode = new Map<string, number>();
  for (const r of rejected) byCode.set(r.code, (byCode.get(r.code) ?? 0) + 1);
  for (const [code, n] of byCode) counters.rejected.inc({ code }, n);
}

export type EventsService = ReturnType<typeof createEventsService>;
