import { createIntake, type EventLog, LogUnavailableError, type SessionContext } from "@feedlab/ingest";
import type { LocalizedText } from "@feedlab/schemas";
import type { Counter } from "prom-client";
import type { ServiceDeps } from "../deps.ts";
import { forbidden, HttpError, notFound } from "../http/errors.ts";
import type { MonitoringRecorder } from "../monitoring/recorder.ts";
import { consentRequired } from "../study/completion.ts";
import { TtlCache } from "../system/ttl-cache.ts";

export interface EventsServiceDeps extends ServiceDeps {
  readonly log: EventLog;
  readonly counters?: { accepted: Counter<"type">; rejected: Counter<"code"> };
  /** Told of the events each batch rejected, by the experiment and code, for live monitoring. */
  readonly monitoring?: Pick<MonitoringRecorder, "rejected">;
  /**
   * How long a stamping context is remembered (CONTEXT_CACHE_MS by default). One process that
   * publishes every change itself (the embedded database) misses no notification, and can remember
   * longer.
   */
  readonly contextTtlMs?: number;
}

/**
 * How long a session's stamping context (its group's recommender and UI keys, with the versions
 * of its templates) is remembered in-process. A group or template change, or an erasure, clears it at
 * once in every process that hears of it (the change bus, which also clears everything after its
 * connection was lost); the time bounds staleness where a notification was not sent. A context is
 * kept only once consent is given and an arm assigned, which nothing takes back but an erasure.
 * Every event batch needs its session's context: at 1 s, a session sending every half second had the
 * API query for it on most of its batches.
 */
const CONTEXT_CACHE_MS = 30_000;

/**
 * Batch intake (`@feedlab/ingest`'s chain of steps) over the api's sessions, participants and groups:
 * this module looks up and caches a session's stamping context and turns the chain's answers into
 * HTTP answers.
 */
export function createEventsService({
  db,
  now,
  log,
  counters,
  monitoring,
  contextTtlMs = CONTEXT_CACHE_MS,
}: EventsServiceDeps) {
  const contexts = new TtlCache<SessionContext>({ ttlMs: contextTtlMs, max: 100_000 });

  async function lookup(sessionId: string): Promise<SessionContext | null> {
    const cached = contexts.get(sessionId);
    if (cached) return cached;
    // A group names a template by its id; events stamp the template's version with it.
    const row = await db("sessions as s")
      .join("users as u", "u.id", "s.user_id")
      .join("experiments as e", "e.id", "u.experiment_id")
      .leftJoin("groups as g", "g.id", "u.group_id")
      .leftJoin("ui_templates as tf", (j) => j.on(db.raw("cast(tf.id as text) = g.ui_feed")))
      .leftJoin("ui_templates as tw", (j) => j.on(db.raw("cast(tw.id as text) = g.ui_watch")))
      .where("s.id", sessionId)
      .first<{
        user_id: string;
        login_id: string;
        experiment_id: string;
        group_id: string | null;
        algorithm_feed: string | null;
        algorithm_watch: string | null;
        ui_feed: string | null;
        ui_watch: string | null;
        feed_version: number | null;
        watch_version: number | null;
        simulated: boolean;
        consent_text: LocalizedText | null;
        consented_at: Date | null;
      }>(
        "s.user_id",
        "u.login_id",
        "u.experiment_id",
        "u.group_id",
        "g.algorithm_feed",
        "g.algorithm_watch",
        "g.ui_feed",
        "g.ui_watch",
        "tf.version as feed_version",
        "tw.version as watch_version",
        "u.simulated",
        "e.consent_text",
        "u.consented_at",
      );
    if (!row) return null;
    const { feed_version, watch_version, consent_text, consented_at, ...fields } = row;
    const consentPending = consentRequired(consent_text) && consented_at === null;
    const context: SessionContext = {
      session_id: sessionId,
      owner: row.user_id,
      ...fields,
      algorithm_feed: row.algorithm_feed ?? "",
      algorithm_watch: row.algorithm_watch ?? "",
      ui_feed: feed_version === null ? row.ui_feed : `${row.ui_feed}@${feed_version}`,
      ui_watch: watch_version === null ? row.ui_watch : `${row.ui_watch}@${watch_version}`,
      consentPending,
    };
    // A participant about to consent, or waiting for their arm (api.md "Assignment (wave 4)"), is asked
    // again on their next batch.
    if (!consentPending && row.group_id !== null) contexts.set(sessionId, context);
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
      if (outcome.kind === "accepted") {
        const experimentId =
          outcome.result.rejected.length > 0 ? contexts.get(sessionId)?.experiment_id : null;
        if (monitoring && experimentId) {
          const byCode = Map.groupBy(outcome.result.rejected, (r) => r.code);
          for (const [code, list] of byCode) monitoring.rejected(experimentId, code, list.length);
        }
        return outcome.result;
      }
      if (outcome.refusal.code === "foreign_session" || outcome.refusal.code === "consent_required")
        throw forbidden(outcome.refusal.code, outcome.refusal.message);
      throw notFound("session");
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
