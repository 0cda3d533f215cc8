import { participantProgress } from "@feedlab/projector";
import {
  type Completion,
  type ExperimentStatus,
  languageFor,
  type Me,
  type Reminders,
  type Schedule,
  textIn,
} from "@feedlab/schemas";
import { isoOrNull, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import type { ParticipantPrincipal } from "../http/context.ts";
import { conflict, forbidden, unprocessable } from "../http/errors.ts";
import { assignWaiting } from "../participants/assignment/assign.ts";
import {
  markParticipantFinished,
  markParticipantLapsed,
  recordConsent,
  recordConsentDeclined,
} from "../participants/queries/users.queries.ts";
import { storeContact } from "../reminders/queries/contacts.queries.ts";
import { hasActivePreSurvey, postSurveyStateOf } from "../surveys/queries/answers.queries.ts";
import { TtlCache } from "../system/ttl-cache.ts";
import {
  completionInForce,
  conditionsReached,
  consentRequired,
  consentVersion,
  fillRedirect,
  finishesStudy,
  type PostSurveyState,
  type Progress,
  postSurveyForced,
} from "./completion.ts";
import { languageFrom, storeLanguage } from "./language.ts";
import { participantOnSchedule, type ScheduleState } from "./schedule.ts";
import { EMAIL, nextSessionOf, pagesOpen, type StudyRow, studyRow } from "./study-row.ts";

/** What the gate reads of a participant (cached briefly). */
interface GateState {
  readonly status: ExperimentStatus;
  readonly consentPending: boolean;
  readonly simulated: boolean;
  /** The experiment has a schedule: the pages check the session against it. */
  readonly scheduled: boolean;
}

/** What a participant request needs to be let through: the pages (feed, watch) or the surveys. */
export type StudyArea = "pages" | "surveys";

/**
 * How long the gate trusts what it read of a participant by default (other processes see a change
 * after it).
 */
const GATE_TTL_MS = 2000;

/** A participant with an arm: what the feed, watch and layout routes serve. */
export type AssignedParticipant = ParticipantPrincipal & { readonly groupId: string };

/** 409 `not_assigned` until the participant has an arm (api.md "Assignment (wave 4)"). */
export function assigned(p: ParticipantPrincipal): AssignedParticipant {
  if (p.groupId === null)
    throw conflict(
      "not_assigned",
      "Please answer the questions at the start of the study first: they decide what you will see.",
    );
  return p as AssignedParticipant;
}

/**
 * The study flow of api.md: consent, completion and the study states as they apply to one participant.
 * A participant is finished when the experiment's completion rule says so: all its conditions
 * reached, then the active post survey answered (or dismissed, unless the rule waits for its answer:
 * `finishesStudy`). This is checked when they ask (`/me`, the survey dispatcher) and recorded once
 * (`finished_at`).
 *
 * `gateCacheMs`: how long the gate trusts what it read (default 2 s). Longer only where this process
 * makes every change of a study's status or a participant's consent (the embedded database).
 */
export function createStudyService(
  { db, now }: ServiceDeps,
  {
    gateCacheMs = GATE_TTL_MS,
    onFinished,
  }: {
    gateCacheMs?: number;
    /** Called once when a participant is recorded finished (Prolific's approval on finish). */
    onFinished?: (userId: string, experimentId: string) => void;
  } = {},
) {
  const gateCache = new TtlCache<GateState>({
    ttlMs: gateCacheMs,
    max: 50_000,
  });

  const row = (userId: string) => studyRow(db, userId);

  /** What counts toward completion so far, by the server's clock (participantProgress). */
  async function progress(
    r: StudyRow,
    completion: Completion | null,
    current?: string,
  ): Promise<Progress & { visit: number; schedule: ScheduleState | null }> {
    const gapMinutes = completion?.min_session_gap_minutes ?? 0;
    const at = now();
    const p = await participantProgress(db, r.user_id, { gapMinutes, current, now: at });
    const feed_minutes = Math.round(p.minutes * 100) / 100;
    const schedule = scheduleOf(r);
    if (schedule.length === 0) return { sessions: p.sessions, feed_minutes, visit: p.visit, schedule: null };
    // With a schedule, sessions count by their windows (api.md "Longitudinal studies (wave 4)").
    const state = participantOnSchedule(schedule, completion, p.begun, {
      now: at.getTime(),
      simulated: r.simulated,
      ...(current === undefined ? {} : { current }),
    });
    return { sessions: state.counted.length, feed_minutes, visit: state.visit, schedule: state };
  }

  /** The experiment's active post survey for the participant: whether there is one, answered or dismissed. */
  async function postSurvey(experimentId: string, userId: string): Promise<PostSurveyState> {
    return postSurveyStateOf(db, experimentId, userId);
  }

  /** Agreeing records both the time and the version, together. */
  /**
   * The consent text the participant reads, in their language (its version is that text's); null when
   * the study has no consent step.
   */
  const consentIn = (r: StudyRow): string | null => {
    if (!consentRequired(r.consent_text)) return null;
    const { language, defaultLanguage } = languageFrom(r);
    return textIn(r.consent_text, language, defaultLanguage);
  };

  const consentPending = (r: StudyRow) => consentRequired(r.consent_text) && r.consented_at === null;

  const scheduleOf = (r: StudyRow): Schedule => json<Schedule | null>(r.schedule, null) ?? [];

  const pagesOpenTo = (r: StudyRow) => pagesOpen({ status: r.experiment_status, simulated: r.simulated });

  /**
   * Evaluates the completion rule: whether its conditions are reached (the study has ended for the
   * participant: the post survey is due) and whether the participant is finished, recorded once.
   * `progress` is read only when the rule needs it, or when the caller asks for it (with the visit
   * `session` makes).
   */
  async function evaluate(r: StudyRow, withProgress: boolean, session?: string) {
    const completion = json<Completion | null>(r.completion, null);
    const open = r.finished_at === null && r.lapsed_at === null;
    const needsProgress =
      withProgress ||
      (open && completion !== null && r.experiment_status !== "completed") ||
      (open && scheduleOf(r).length > 0);
    const current = needsProgress ? await progress(r, completion, session) : null;
    // A window closed unused while the study runs (for a dry run's participants, a draft): lapsed, for good.
    let lapsed = r.lapsed_at !== null;
    if (!lapsed && r.finished_at === null && current?.schedule?.lapsed && pagesOpenTo(r)) {
      await markParticipantLapsed(db, r.user_id, now());
      lapsed = true;
    }
    const reached =
      r.experiment_status === "completed" ||
      (completion !== null &&
        current !== null &&
        conditionsReached(completion, current, r.experiment_status));
    let finished = r.finished_at !== null;
    if (!finished && !lapsed && completion && reached && !consentPending(r)) {
      finished = finishesStudy(completion, await postSurvey(r.experiment_id, r.user_id));
      // A dry run's simulated participant never reaches a recruiting platform.
      if (finished && (await markParticipantFinished(db, r.user_id, now())) && !r.simulated)
        onFinished?.(r.user_id, r.experiment_id);
    }
    const state = finished || lapsed ? null : (current?.schedule ?? null);
    return {
      completion,
      reached: (reached && !lapsed) || finished,
      finished,
      lapsed: lapsed && !finished,
      progress: current,
      next: state?.next ?? null,
      sessionOpen: state === null ? !lapsed || finished : state.sessionOpen,
    };
  }

  /** Sessions the schedule let onto the pages, remembered briefly (a session that counts stays so). */
  const openSessions = new TtlCache<true>({ ttlMs: 5000, max: 50_000 });

  /**
   * The schedule's gate of the feed and watch pages (api.md "Longitudinal studies (wave 4)"): a
   * session before its window -> 409 `session_not_open` with `opens_at`; a lapsed participant -> 403
   * `participant_lapsed`.
   */
  async function sessionGate(userId: string, sessionId: string): Promise<void> {
    await openSessions.fetch(`${userId}:${sessionId}`, async () => {
      const { lapsed, sessionOpen, next } = await evaluate(await row(userId), false, sessionId);
      if (lapsed)
        throw forbidden(
          "participant_lapsed",
          "The time for your next session has passed, so this study has closed for you. Thank you for taking part.",
        );
      if (!sessionOpen)
        throw conflict(
          "session_not_open",
          "Your next session has not opened yet. Please come back when it opens.",
          { opens_at: next === null ? null : new Date(next.opens_at).toISOString() },
        );
      return true;
    });
  }

  return {
    /**
     * `GET /me`: the participant, their group's configuration, and where they stand in the study:
     * status, completion (once finished), consent and progress.
     */
    async me(userId: string, session?: string): Promise<Me> {
      let r = await row(userId);
      // Waiting for the pre survey's answers, in a study that no longer has one active: assigned now,
      // their answers missing levels (api.md "Assignment (wave 4)").
      if (r.group_id === null && !(await hasActivePreSurvey(db, r.experiment_id))) {
        await db.transaction((trx) => assignWaiting(trx, userId, {}, now()));
        r = await row(userId);
      }
      const {
        completion,
        finished,
        lapsed,
        progress: p,
        next,
        sessionOpen,
      } = await evaluate(r, true, session);
      const recruiting = json<Record<string, string> | null>(r.recruiting, null) ?? {};
      const language = languageFrom(r);
      const consent = consentIn(r);
      const code = completion?.code ?? null;
      return {
        user_id: r.user_id,
        login_id: r.login_id,
        experiment_id: r.experiment_id,
        experiment_status: r.experiment_status,
        group_id: r.group_id,
        algorithm_config:
          r.group_id === null ? null : { feed: String(r.algorithm_feed), watch: String(r.algorithm_watch) },
        ui_config: r.group_id === null ? null : { feed: String(r.ui_feed), watch: String(r.ui_watch) },
        status: finished ? "finished" : lapsed ? "lapsed" : "active",
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
                redirect_delay_s: completionInForce(completion).redirect_delay_s,
              }
            : null,
        consent: consent
          ? {
              text: consent,
              version: consentVersion(consent),
              consented_at: isoOrNull(r.consented_at),
              declined_at: isoOrNull(r.consent_declined_at),
            }
          : null,
        experiment_name: r.experiment_name,
        progress: {
          sessions: p?.sessions ?? 0,
          feed_minutes: p?.feed_minutes ?? 0,
          visit: p?.visit ?? 0,
          sessions_needed: completion?.after_sessions ?? null,
          feed_minutes_needed: completion?.after_feed_minutes ?? null,
        },
        next_session: next === null ? null : nextSessionOf(next),
        session_open: sessionOpen,
        email_reminders: json<Reminders | null>(r.reminders, null)?.email === true,
        simulated: r.simulated === true,
        language: language.language,
        languages: [...language.languages],
        language_switch: language.switchable,
      };
    },

    /**
     * `PUT /me/language`: the participant's language, changed from the page header where the study
     * allows it (403 `language_switch_off`), to one the study lists (422 `unknown_language`); recorded.
     */
    async setLanguage(userId: string, wanted: string): Promise<void> {
      const current = languageFrom(await row(userId));
      if (!current.switchable)
        throw forbidden("language_switch_off", "This study does not let participants change language.");
      const to = languageFor(wanted, current.languages);
      if (to === null)
        throw unprocessable(
          "unknown_language",
          `"${wanted}" is not one of this study's languages (${current.languages.join(", ")}).`,
          { field: "language" },
        );
      await db.transaction((trx) => storeLanguage(trx, userId, current.language, to, now()));
    },

    /**
     * Whether the study has ended for the participant (the experiment is completed, their completion
     * conditions are reached, or they finished): the post survey is due then, and no inter-session
     * survey follows it. `postForced`: the post survey is served forced (`after_post_survey`).
     */
    async ended(userId: string): Promise<{ ended: boolean; postForced: boolean }> {
      const { reached, completion } = await evaluate(await row(userId), false);
      return { ended: reached, postForced: postSurveyForced(completion) };
    },

    /**
     * Records the participant's answer to the consent text. Agreeing again keeps the first time; a
     * `version` other than the current text's (the text changed while they read it) -> 409.
     */
    async consent(userId: string, agree: boolean, version?: string, email?: string): Promise<void> {
      const address = email?.trim() ?? "";
      if (address !== "" && !EMAIL.test(address))
        throw unprocessable(
          "invalid_email",
          "This e-mail address does not look right. Please check it, or leave the field empty.",
          { field: "email" },
        );
      const r = await row(userId);
      const text = consentIn(r);
      if (text === null) return;
      const current = consentVersion(text);
      if (version !== undefined && version !== current)
        throw conflict(
          "consent_changed",
          "The consent text changed while you were reading it. Please read it again.",
          { version: current },
        );
      const at = now();
      if (agree) {
        // The address only where the study sends reminders, sealed (api.md "Longitudinal studies (wave 4)").
        const remind = address !== "" && json<Reminders | null>(r.reminders, null)?.email === true;
        await db.transaction(async (trx) => {
          await recordConsent(trx, userId, { consented_at: r.consented_at ?? at, consent_version: current });
          if (remind) await storeContact(trx, userId, address, at);
        });
      } else if (r.consented_at === null) {
        await recordConsentDeclined(db, userId, at);
      }
      gateCache.delete(userId);
    },

    /**
     * The gate of the participant endpoints (api.md, Study flow): without consent -> 403
     * `consent_required`; a paused study -> 403 `experiment_paused`; the feed and watch pages of a
     * study that is not running -> 403 `experiment_not_open`, except a draft's to its simulated
     * participants (a completed study keeps its surveys for the post survey). Cached briefly per
     * participant. Returns the participant, let through.
     */
    async admit(
      p: ParticipantPrincipal,
      area: StudyArea,
    ): Promise<ParticipantPrincipal & { scheduled: boolean }> {
      const known = (await gateCache.fetch(p.userId, async () => {
        const r = await row(p.userId);
        return {
          status: r.experiment_status,
          consentPending: consentPending(r),
          simulated: r.simulated,
          scheduled: scheduleOf(r).length > 0,
        };
      })) as GateState;
      if (known.consentPending)
        throw forbidden("consent_required", "Please read and agree to the consent form first.");
      if (known.status === "paused")
        throw forbidden("experiment_paused", "This study is paused. Please come back later.");
      if (area === "pages" && !pagesOpen(known))
        throw forbidden("experiment_not_open", "This study is not open right now.");
      return { ...p, scheduled: known.scheduled };
    },

    /**
     * The gate of the feed and watch pages: `admit`'s, then 409 `not_assigned` for a participant who
     * has no arm yet (a study that assigns on the pre survey's answers: api.md "Assignment (wave 4)").
     */
    async admitToPages(p: ParticipantPrincipal, sessionId?: string): Promise<AssignedParticipant> {
      const { scheduled } = await this.admit(p, "pages");
      const a = assigned(p);
      if (scheduled && sessionId !== undefined) await sessionGate(p.userId, sessionId);
      return a;
    },

    /** Forgets what the gate read (after a change of an experiment made in this process). */
    invalidate(): void {
      gateCache.clear();
    },
  };
}

export type StudyService = ReturnType<typeof createStudyService>;
