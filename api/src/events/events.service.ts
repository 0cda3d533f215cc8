import { createIntake, type EventLog, LogUnavailableError, type SessionContext } from "@feedlab/ingest";
import type { Counter } from "prom-client";
import type { ServiceDeps } from "../deps.ts";
import { forbidden, HttpError, notFound } from "../http/errors.ts";
import { TtlCache } from "../system/ttl-cache.ts";

export type { IntakeResult } from "@feedlab/ingest";

export interface EventsServiceDeps extends ServiceDeps {
  readonly log: EventLog;
  readonly counters?: { accepted: Counter<"type">; rejected: Counter<"code"> };
}

/**
 * How long a session's stamping context (its group's recommender keys) is remembered in-process.
 * A group change here clears it at once; other API processes stamp the new keys within this time.
 */
const CONTEXT_CACHE_MS = 1000;

/**
 * Batch intake (`@feedlab/ingest`'s chain of steps) over the api's sessions, participants and groups:
 * this module looks up and caches a session's stamping context and turns the chain's answers into
 * HTTP answers.
 */
export function createEventsService({ db, now, log, counters }: EventsServiceDeps) {
  const contexts = new TtlCache<SessionContext>({ ttlMs: CONTEXT_CACHE_MS, max: 100_000 });

  async function lookup(sessionId: string): Promise<SessionContext | null> {
    const cached = contexts.get(sessionId);
    if (cached) return cached;
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
    if (!row) return null;
    const context = { session_id: sessionId, owner: row.user_id, ...row };
    contexts.set(sessionId, context);
    return context;
  }

  const intake = createIntake({
    log,
    sessions: lookup,
    now,
    onCounted: (accepted, rejected) => {
      if (!counters) return;
      for (const [type, n] of accepted) counters.accepted.inc({ type }, n);
      for (const [code, n] of rejected) counters.rejected.inc({ code }, n);
    },
  });

  return {
    /** Forgets cached stamping contexts (called when a group's configuration changes). */
    invalidateContexts: () => contexts.clear(),

    async ingest(userId: string, sessionId: string, raw: readonly unknown[]) {
      let outcome: Awaited<ReturnType<typeof intake>>;
      try {
        outcome = await intake(userId, sessionId, raw);
      } catch (err) {
        if (err instanceof LogUnavailableError) {
          throw new HttpError(
            503,
            "event_log_unavailable",
            "The event log is unavailable; retry the same batch shortly.",
            undefined,
            { "Retry-After": "2" },
          );
        }
        throw err;
      }
      if (outcome.kind === "accepted") return outcome.result;
      if (outcome.refusal.code === "foreign_session")
        throw forbidden("foreign_session", outcome.refusal.message);
      throw notFound("session");
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
