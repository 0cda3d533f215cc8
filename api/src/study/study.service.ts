import { participantMinutes } from "@feedlab/projector";
import type { Completion, ExperimentStatus, Me } from "@feedlab/schemas";
import { isoOrNull, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import type { ParticipantPrincipal } from "../http/context.ts";
import { conflict, forbidden, notFound } from "../http/errors.ts";
import { TtlCache } from "../system/ttl-cache.ts";
import {
  conditionsReached,
  consentRequired,
  consentVersion,
  fillRedirect,
  type Progress,
} from "./completion.ts";

interface StudyRow {
  user_id: string;
  login_id: string;
  experiment_id: string;
  experiment_status: ExperimentStatus;
  consent_text: string | null;
  completion: unknown;
  recruiting: unknown;
  consented_at: Date | null;
  consent_version: string | null;
  consent_declined_at: Date | null;
  finished_at: Date | null;
}

/** Where a participant stands in the study flow. */
export interface StudyState {
  readonly experimentStatus: ExperimentStatus;
  readonly completion: Completion | null;
  /** The experiment has a consent text the participant has not agreed to (yet, or any more). */
  readonly consentPending: boolean;
  readonly finished: boolean;
}

/** What a participant request needs to be let through: the pages (feed, watch) or the surveys. */
export type StudyArea = "pages" | "surveys";

/** How long the gate trusts what it read of a participant (other processes see a change after it). */
const GATE_TTL_MS = 2000;

/**
 * The study flow of api.md: consent, completion and the study states as they apply to one participant.
 * A participant is finished when the experiment's completion rule says so (all its conditions reached,
 * the post survey answered when it asks for one); this is checked when they ask (`/me`, the gate) and
 * recorded once (`finished_at`).
 */
export function createStudyService({ db, now }: ServiceDeps) {
  const gateCache = new TtlCache<{ status: ExperimentStatus; consentPending: boolean }>({
    ttlMs: GATE_TTL_MS,
    max: 50_000,
  });

  async function row(userId: string): Promise<StudyRow> {
    const r = await db("users as u")
      .join("experiments as e", "e.id", "u.experiment_id")
      .where("u.id", userId)
      .first<StudyRow | undefined>(
        "u.id as user_id",
        "u.login_id",
        "u.experiment_id",
        "e.status as experiment_status",
        "e.consent_text",
        "e.completion",
        "u.recruiting",
        "u.consented_at",
        "u.consent_version",
        "u.consent_declined_at",
        "u.finished_at",
      );
    if (!r) throw notFound("participant");
    return r;
  }

  async function progress(userId: string): Promise<Progress> {
    const [sessions, minutes] = await Promise.all([
      db("sessions").where({ user_id: userId }).count<{ n: string | number }[]>("id as n"),
      participantMinutes(db, userId),
    ]);
    return { sessions: Number(sessions[0]?.n ?? 0), feed_minutes: Math.round(minutes * 100) / 100 };
  }

  /** Whether the participant answered the experiment's active post survey (false without one). */
  async function postAnswered(experimentId: string, userId: string): Promise<boolean> {
    const answered = await db("survey_responses as r")
      .join("surveys as s", "s.id", "r.survey_id")
      .where({ "s.experiment_id": experimentId, "s.kind": "post", "s.is_active": true, "r.user_id": userId })
      .first("r.id");
    return answered !== undefined;
  }

  const consentPending = (r: StudyRow) =>
    consentRequired(r.consent_text) && (r.consented_at === null || r.consent_version === null);

  /** Evaluates the completion rule and records a participant who just finished. */
  async function evaluate(r: StudyRow): Promise<{ finished: boolean; progress: Progress }> {
    const current = await progress(r.user_id);
    if (r.finished_at) return { finished: true, progress: current };
    const completion = json<Completion | null>(r.completion, null);
    if (!completion || consentPending(r)) return { finished: false, progress: current };
    if (!conditionsReached(completion, current, r.experiment_status))
      return { finished: false, progress: current };
    if (completion.after_post_survey && !(await postAnswered(r.experiment_id, r.user_id)))
      return { finished: false, progress: current };
    await db("users").where({ id: r.user_id }).whereNull("finished_at").update({ finished_at: now() });
    return { finished: true, progress: current };
  }

  return {
    /** The study-flow part of `GET /me`: status, completion (once finished), consent and progress. */
    async describe(userId: string): Promise<Pick<Me, "status" | "completion" | "consent" | "progress">> {
      const r = await row(userId);
      const { finished, progress: p } = await evaluate(r);
      const completion = json<Completion | null>(r.completion, null);
      const recruiting = json<Record<string, string> | null>(r.recruiting, null) ?? {};
      const code = completion?.code ?? null;
      return {
        status: finished ? "finished" : "active",
        completion:
          finished && completion
            ? {
                code,
                redirect_url: completion.redirect_url
                  ? fillRedirect(completion.redirect_url, {
                      ...recruiting,
                      login_id: r.login_id,
                      code: code ?? "",
                    })
                  : null,
              }
            : null,
        consent: consentRequired(r.consent_text)
          ? {
              text: r.consent_text,
              version: consentVersion(r.consent_text),
              consented_at: r.consent_version ? isoOrNull(r.consented_at) : null,
              declined_at: isoOrNull(r.consent_declined_at),
            }
          : null,
        progress: p,
      };
    },

    /**
     * Where the participant stands: the survey dispatcher uses it so a study-ending post survey comes
     * when the completion's conditions are reached, and no inter-session survey follows it.
     */
    async state(userId: string): Promise<StudyState & { postStage: boolean }> {
      const r = await row(userId);
      const completion = json<Completion | null>(r.completion, null);
      const { finished, progress: p } = await evaluate(r);
      const postStage =
        r.experiment_status === "completed" ||
        finished ||
        (completion !== null && conditionsReached(completion, p, r.experiment_status));
      return {
        experimentStatus: r.experiment_status,
        completion,
        consentPending: consentPending(r),
        finished,
        postStage,
      };
    },

    /**
     * Records the participant's answer to the consent text. Agreeing again keeps the first time; a
     * `version` other than the current text's (the text changed while they read it) -> 409.
     */
    async consent(userId: string, agree: boolean, version?: string): Promise<void> {
      const r = await row(userId);
      if (!consentRequired(r.consent_text)) return;
      const current = consentVersion(r.consent_text);
      if (version !== undefined && version !== current)
        throw conflict(
          "consent_changed",
          "The consent text changed while you were reading it. Please read it again.",
          { version: current },
        );
      const at = now();
      if (agree) {
        await db("users")
          .where({ id: userId })
          .update({
            consented_at: r.consented_at ?? at,
            consent_version: current,
            consent_declined_at: null,
          });
      } else if (r.consented_at === null) {
        await db("users").where({ id: userId }).update({ consent_declined_at: at });
      }
      gateCache.delete(userId);
    },

    /**
     * The gate of the participant endpoints (api.md, Study flow): without consent -> 403
     * `consent_required`; a paused study -> 403 `experiment_paused`; the feed and watch pages of a
     * study that is not running -> 403 `experiment_not_open` (a completed study keeps its surveys for
     * the post survey). Cached briefly per participant.
     */
    async assertOpen(p: ParticipantPrincipal, area: StudyArea): Promise<void> {
      let known = gateCache.get(p.userId);
      if (!known) {
        const r = await row(p.userId);
        known = { status: r.experiment_status, consentPending: consentPending(r) };
        gateCache.set(p.userId, known);
      }
      if (known.consentPending)
        throw forbidden("consent_required", "Please read and agree to the consent form first.");
      if (known.status === "paused")
        throw forbidden("experiment_paused", "This study is paused. Please come back later.");
      if (area === "pages" && known.status !== "running")
        throw forbidden("experiment_not_open", "This study is not open right now.");
    },

    /** Forgets what the gate read (tests, and after changes made in this process). */
    invalidate(userId?: string): void {
      if (userId) gateCache.delete(userId);
      else gateCache.clear();
    },
  };
}

export type StudyService = ReturnType<typeof createStudyService>;
