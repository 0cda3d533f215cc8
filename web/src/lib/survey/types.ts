/**
 * Survey shapes of the HTTP contract (api.md, Surveys; the spec's Survey, Question, Answer), as the web
 * app reads and writes them.
 */
import type { Timestamp } from "../types.ts";

export const SURVEY_KINDS = ["pre", "inter_session", "post"] as const;
export type SurveyKind = (typeof SURVEY_KINDS)[number];
export type QuestionType = "single" | "multi" | "text";

export interface AnswerOption {
  id: string;
  text: string;
  /** Analyst-defined numeric coding (Likert, ordinal; nominal categories may use 0). */
  value: number;
}

export interface Question {
  id: string;
  text: string;
  type: QuestionType;
  /** multi only. */
  minSelect: number | null;
  /** multi only; 0 means no upper bound. */
  maxSelect: number | null;
  answers: AnswerOption[];
}

export interface Survey {
  id: string;
  experiment_id: string;
  kind: SurveyKind;
  name: string;
  is_active: boolean;
  questions: Question[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A survey as the admin API lists it. */
export interface AdminSurvey extends Survey {
  question_count: number;
  response_count: number;
}

export interface SurveyInput {
  name: string;
  questions: Question[];
}

export interface SurveyCreateInput extends SurveyInput {
  kind: SurveyKind;
  is_active?: boolean;
}

/** `GET /api/v1/surveys/pending`: the survey due now, or null. */
export interface PendingSurvey {
  survey: Survey;
  /** true for pre surveys: the page stays unmounted until the survey is submitted. */
  forced: boolean;
  /** inter_session: the previous session the answers are about. */
  about_session_id: string | null;
}

export interface AnswerInput {
  questionId: string;
  selections: string[];
  textInput: string | null;
}

export interface ResponseInput {
  session_id: string;
  about_session_id?: string | null;
  answers: AnswerInput[];
}

/** The stored response: answers expanded to the spec's Answer records. */
export interface SurveyResponse {
  id: string;
  survey_id: string;
  user_id: string;
  about_session_id: string | null;
  answers: {
    questionId: string;
    questionText: string;
    selections: AnswerOption[];
    textInput: string | null;
  }[];
  created_at: Timestamp;
}

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
  post: "Shown once the experiment's status is completed. Participants may close it.",
};
