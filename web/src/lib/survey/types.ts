/**
 * Survey shapes of the HTTP contract: the server's own schemas (`@feedlab/schemas`), type-only; and
 * how the console names and orders the kinds.
 */
import type { PendingSurvey as PendingAnswer, SurveyKind } from "@feedlab/schemas";

export type {
  AdminSurvey,
  AnswerInput,
  AnswerOption,
  ParticipantQuestion,
  ParticipantSurvey,
  Question,
  QuestionType,
  ResponseCreate as ResponseInput,
  Survey,
  SurveyCreate as SurveyCreateInput,
  SurveyKind,
  SurveyResponse,
  SurveyUpdate as SurveyInput,
} from "@feedlab/schemas";

/** The survey due now (`GET /api/v1/surveys/pending` answers this or null). */
export type PendingSurvey = NonNullable<PendingAnswer>;

/** The kinds in the order the console shows them: as a participant meets them. */
export const SURVEY_KINDS: readonly SurveyKind[] = ["pre", "inter_session", "post"];

/** How the console names each kind. */
export const KIND_LABELS: Record<SurveyKind, string> = {
  pre: "Pre-study",
  inter_session: "Inter-session",
  post: "Post-study",
};

/** When each kind is shown to participants (the spec's dispatcher). */
export const KIND_DESCRIPTIONS: Record<SurveyKind, string> = {
  pre: "Shown before the feed on the first visit. Participants must answer it to continue.",
  inter_session: "Shown at the start of each new visit, about the previous visit. Participants may close it.",
  post: "Shown when the study ends for a participant: their completion conditions are reached, or the experiment is completed. Participants may close it.",
};
