import {
  type AnswerProblem,
  type AnswerRecord,
  checkAnswers,
  type PendingSurvey,
  type Question,
  type ResponseCreate,
  type SurveyKind,
  type SurveyResponse,
} from "@feedlab/schemas";
import type { AttentionQuestion } from "@feedlab/schemas/surveys/attention.ts";
import { iso, isUniqueViolation, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { lockExperiment } from "../experiments/queries/experiments.queries.ts";
import type { ParticipantPrincipal } from "../http/context.ts";
import { conflict, notFound, unauthorized, unprocessable } from "../http/errors.ts";
import { answerLevels, assignWaiting } from "../participants/assignment/assign.ts";
import { refreshSurveyMeasures } from "../quality/survey-measures.ts";
import { ownSession, previousSessionOf } from "../sessions/queries/sessions.queries.ts";
import type { SessionsService } from "../sessions/sessions.service.ts";
import { languageOf, type ParticipantLanguage } from "../study/language.ts";
import type { StudyService } from "../study/study.service.ts";
import { presentParticipantSurvey, questionsIn, type SurveyRow } from "./surveys.service.ts";
import { verdictOf } from "./verdicts.ts";

interface ResponseRow {
  id: string;
  survey_id: string;
  user_id: string;
  about_session_id: string | null;
  answers: unknown;
  /** How long the form was open (api.md, Data quality and validity); null when the page did not say. */
  duration_ms: number | null;
  created_at: Date;
}

const presentResponse = (r: ResponseRow): SurveyResponse => ({
  id: r.id,
  survey_id: r.survey_id,
  user_id: r.user_id,
  about_session_id: r.about_session_id,
  answers: json<AnswerRecord[]>(r.answers, []),
  duration_ms: r.duration_ms,
  created_at: iso(r.created_at),
});

/** 422 `invalid_answers` naming the first offending answer and rule; every problem in `problems`. */
function invalidAnswers(problems: readonly (AnswerProblem | AboutProblem)[]) {
  const [first] = problems;
  return unprocessable(
    "invalid_answers",
    first ? `${first.field}: ${first.message}.` : "The answers are invalid.",
    { ...first, problems },
  );
}

interface AboutProblem {
  readonly field: "about_session_id";
  readonly rule: "about_session_required" | "unknown_about_session";
  readonly message: string;
}

export interface SurveyResponsesDeps extends ServiceDeps {
  readonly sessions: SessionsService;
  readonly study: StudyService;
}

export function createSurveyResponsesService({ db, newId, now, sessions, study }: SurveyResponsesDeps) {
  /** A participant's language; 401 for a participant erased since their cookie was issued. */
  async function participantLanguage(userId: string): Promise<ParticipantLanguage> {
    const language = await languageOf(db, userId);
    if (language === null) throw unauthorized();
    return language;
  }

  async function hasResponse(surveyId: string, userId: string, aboutSessionId?: string): Promise<boolean> {
    const q = db("survey_responses").where({ survey_id: surveyId, user_id: userId });
    if (aboutSessionId !== undefined) q.where({ about_session_key: aboutSessionId });
    return (await q.first("id")) !== undefined;
  }

  return {
    /**
     * The spec's pending-survey dispatcher (Participant: surveys). The first matching rule wins:
     * 1. an active pre survey the user has not answered -> forced;
     * 2. the study has ended for the participant (the experiment is completed, or its completion
     *    conditions are reached: api.md, Study flow) and an active post survey is unanswered -> not
     *    forced, unless the completion rule waits for its answer (`after_post_survey`: api.md, Validity
     *    rules); the participant is not finished before that;
     * 3. unless the study has ended for them (a study-ending post survey is never followed by an
     *    inter-session one), an active inter_session survey, and the user's most recent session other
     *    than `sessionId` has no response of that survey about it -> not forced, about that session;
     * 4. otherwise null.
     * `sessionId` must be the participant's own session (unknown 404, another's 403).
     */
    async pending(p: ParticipantPrincipal, sessionId: string): Promise<PendingSurvey> {
      await sessions.owned(sessionId, p.userId);
      const active = await db<SurveyRow>("surveys").where({ experiment_id: p.experimentId, is_active: true });
      const byKind = (kind: SurveyKind) => active.find((s) => s.kind === kind);
      const language = await participantLanguage(p.userId);
      const presented = (survey: SurveyRow) => presentParticipantSurvey(survey, language);

      const pre = byKind("pre");
      if (pre && !(await hasResponse(pre.id, p.userId))) {
        return { survey: presented(pre), forced: true, about_session_id: null };
      }

      const post = byKind("post");
      const inter = byKind("inter_session");
      if (!post && !inter) return null;
      const { ended, postForced } = await study.ended(p.userId);
      if (post && ended && !(await hasResponse(post.id, p.userId))) {
        return { survey: presented(post), forced: postForced, about_session_id: null };
      }

      if (inter && !ended) {
        const previous = await previousSessionOf(db, p.userId, sessionId);
        if (previous !== undefined && !(await hasResponse(inter.id, p.userId, previous))) {
          return { survey: presented(inter), forced: false, about_session_id: previous };
        }
      }
      return null;
    },

    /**
     * Records that the participant closed a survey without answering it (the same dismissal in the
     * same session is kept once). A forced survey cannot be dismissed (409 survey_forced).
     */
    async dismiss(
      p: ParticipantPrincipal,
      surveyId: string,
      sessionId: string,
      aboutSessionId: string | null,
    ): Promise<void> {
      await sessions.owned(sessionId, p.userId);
      const survey = await db<SurveyRow>("surveys")
        .where({ id: surveyId, experiment_id: p.experimentId, is_active: true })
        .first("id", "kind");
      if (!survey) throw notFound("survey");
      if (survey.kind === "pre")
        throw conflict(
          "survey_forced",
          "A survey that must be answered before the study cannot be dismissed.",
        );
      if (survey.kind === "post" && (await study.ended(p.userId)).postForced)
        throw conflict(
          "survey_forced",
          "This study finishes with an answer to its post survey: it cannot be dismissed.",
        );
      // The same dismissal again is kept once (a unique index: migration 026).
      await db("survey_dismissals")
        .insert({
          id: newId(),
          survey_id: survey.id,
          user_id: p.userId,
          session_id: sessionId,
          about_session_id: survey.kind === "inter_session" ? aboutSessionId : null,
          dismissed_at: now(),
        })
        .onConflict()
        .ignore();
    },

    /**
     * Stores a response (the state table: none -> submitted, immutable). Checks, in order: the session
     * is the participant's (404/403); the survey is active and of the participant's experiment (else
     * 404); for inter_session, `about_session_id` is one of the participant's sessions (else 422
     * invalid_answers; pre and post ignore it and store null); the answers obey the questions (422
     * invalid_answers). The answers are stored as Answer snapshots, with the `duration_ms` the page measured
     * (its range is the body schema's). A second response for the same key
     * is 409 duplicate_response: the unique indexes decide, so simultaneous submissions store one.
     */
    async submit(p: ParticipantPrincipal, surveyId: string, body: ResponseCreate): Promise<SurveyResponse> {
      await sessions.owned(body.session_id, p.userId);
      const survey = await db<SurveyRow>("surveys")
        .where({ id: surveyId, experiment_id: p.experimentId, is_active: true })
        .first();
      if (!survey) throw notFound("survey");

      let about: string | null = null;
      if (survey.kind === "inter_session") {
        if (!body.about_session_id) {
          throw invalidAnswers([
            {
              field: "about_session_id",
              rule: "about_session_required",
              message: "an inter_session response needs the id of the session it is about",
            },
          ]);
        }
        const own = await ownSession(db, body.about_session_id, p.userId);
        if (own === undefined) {
          throw invalidAnswers([
            {
              field: "about_session_id",
              rule: "unknown_about_session",
              message: "this is not one of your sessions",
            },
          ]);
        }
        about = own;
      }

      // The answers keep the texts the participant read, in their language.
      const language = await participantLanguage(p.userId);
      const checked = checkAnswers(
        questionsIn(json<Question[]>(survey.questions, []), language),
        body.answers,
      );
      if (!checked.ok) throw invalidAnswers(checked.problems);

      const row: ResponseRow = {
        id: newId(),
        survey_id: survey.id,
        user_id: p.userId,
        about_session_id: about,
        answers: checked.answers,
        duration_ms: body.duration_ms ?? null,
        created_at: now(),
      };
      try {
        // The verdict follows the questions as stored when the response is (verdicts.ts): read under a
        // share lock, so a save of the survey either waits for this insert and judges it again, or has
        // committed and judged before these questions are read.
        await db.transaction(async (trx) => {
          // A participant waiting for their arm is assigned by this answer (api.md "Assignment (wave 4)"),
          // under the experiment's lock, taken first as a join takes it.
          const assigning = survey.kind === "pre" && p.groupId === null;
          if (assigning) await lockExperiment(trx, p.experimentId, "id");
          const current = (await trx("surveys").where({ id: survey.id }).forShare().first("questions")) as
            | { questions: unknown }
            | undefined;
          await trx("survey_responses").insert({
            ...row,
            language: language.language,
            about_session_key: about,
            answers: JSON.stringify(checked.answers),
            ...verdictOf(
              json<AttentionQuestion[]>(current?.questions ?? survey.questions, []),
              checked.answers,
            ),
          });
          await refreshSurveyMeasures(trx, p.experimentId, [p.userId]);
          // A full study stores nothing: 403 experiment_full, the response rolled back with the rest.
          if (assigning) await assignWaiting(trx, p.userId, answerLevels(checked.answers), now());
        });
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw conflict("duplicate_response", "You have already answered this survey.", {
            survey_id: survey.id,
            about_session_id: about,
          });
        }
        // The survey or the session was deleted between the checks and the insert.
        const code = (err as { code?: string } | null)?.code;
        if (code === "23503" || code === "23514") throw notFound("survey");
        throw err;
      }
      return presentResponse(row);
    },
  };
}

export type SurveyResponsesService = ReturnType<typeof createSurveyResponsesService>;
