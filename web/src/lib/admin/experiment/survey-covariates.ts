import type { Assignment } from "@feedlab/schemas/http/assignment.ts";
import { defaultText } from "@feedlab/schemas/http/localized-text.ts";
import type { AdminSurvey, Question } from "../../survey/types.ts";

/** What these helpers read of a survey: the admin list's records fit. */
export type SurveyOfStudy = Pick<AdminSurvey, "id" | "kind" | "name" | "is_active" | "questions">;

/**
 * The pre survey participants answer before any feed: a study has at most one active (activating a
 * second is refused), and only its questions can be balanced on (api.md "Assignment (wave 4)").
 */
export const activePreSurvey = <S extends SurveyOfStudy>(surveys: readonly S[]): S | null =>
  surveys.find((s) => s.kind === "pre" && s.is_active) ?? null;

/** The questions minimisation can balance on: the single-choice ones, each answer one level. */
export const balanceableQuestions = (survey: SurveyOfStudy | null): Question[] =>
  survey?.questions.filter((q) => q.type === "single") ?? [];

/** The survey covariates' question ids of an assignment, in its order. */
export const surveyCovariateKeys = (assignment: Pick<Assignment, "covariates">): string[] =>
  (assignment.covariates ?? []).filter((c) => c.source === "survey").map((c) => c.key);

/**
 * Why a survey covariate cannot be balanced on (the server then reports `invalid_assignment` with the
 * question id as `key`, and refuses the start): no pre survey is active, the active one does not ask the
 * question, or asks it as something other than a single choice.
 */
export type SurveyCovariateFault =
  | { readonly fault: "no_active_pre_survey"; readonly question: Question | null }
  | { readonly fault: "not_asked"; readonly survey: SurveyOfStudy; readonly question: Question | null }
  | { readonly fault: "not_single"; readonly survey: SurveyOfStudy; readonly question: Question };

/** The question of that id in any of the study's surveys, the active pre survey's first (for its text). */
export function questionById(surveys: readonly SurveyOfStudy[], key: string): Question | null {
  const ordered = [...surveys].sort(
    (a, b) =>
      Number(b.kind === "pre") - Number(a.kind === "pre") || Number(b.is_active) - Number(a.is_active),
  );
  for (const s of ordered) {
    const q = s.questions.find((x) => x.id === key);
    if (q) return q;
  }
  return null;
}

/** What is wrong with balancing on the question `key`, or null when it is a single choice of the active pre survey. */
export function surveyCovariateFault(
  surveys: readonly SurveyOfStudy[],
  key: string,
): SurveyCovariateFault | null {
  const survey = activePreSurvey(surveys);
  if (survey === null) return { fault: "no_active_pre_survey", question: questionById(surveys, key) };
  const question = survey.questions.find((q) => q.id === key);
  if (!question) return { fault: "not_asked", survey, question: questionById(surveys, key) };
  if (question.type !== "single") return { fault: "not_single", survey, question };
  return null;
}

/** A question as the team reads it: its text in the study's default language, else its id. */
export const questionLabel = (question: Question | null, key: string, defaultLanguage: string): string => {
  const text = question ? defaultText(question.text, defaultLanguage).trim() : "";
  return text === "" ? key : text;
};

/** The short note beside a chosen question that cannot be balanced on (the Assignment section's boxes). */
const FAULT_NOTES: Readonly<Record<SurveyCovariateFault["fault"], string>> = {
  no_active_pre_survey: "not in the active pre survey",
  not_asked: "not in the active pre survey",
  not_single: "not single-choice",
};

/** One box of the Assignment section's list of questions. */
export interface SurveyCovariateChoice {
  /** The question's id: the covariate's `key`. */
  readonly key: string;
  readonly label: string;
  /** The answers participants choose from, as the team reads them. */
  readonly options: readonly string[];
  /** Set when the question cannot be balanced on: the box is there only so that it can be unticked. */
  readonly note: string | null;
}

/**
 * The questions the researcher can tick: the active pre survey's single-choice ones, in survey order,
 * then every question already chosen that is not among them (saved before the survey changed), marked,
 * so that it can be seen and removed. `surveys` null: not read yet, so the chosen ones show by id alone.
 */
export function surveyCovariateChoices(
  surveys: readonly SurveyOfStudy[] | null,
  chosen: readonly string[],
  defaultLanguage: string,
): SurveyCovariateChoice[] {
  const choiceOf = (key: string, question: Question | null, note: string | null): SurveyCovariateChoice => ({
    key,
    label: questionLabel(question, key, defaultLanguage),
    options: question?.answers.map((o) => defaultText(o.text, defaultLanguage)) ?? [],
    note,
  });
  const offered =
    surveys === null
      ? []
      : balanceableQuestions(activePreSurvey(surveys)).map((q) => choiceOf(q.id, q, null));
  const extra = [...new Set(chosen)]
    .filter((key) => !offered.some((c) => c.key === key))
    .map((key) => {
      if (surveys === null) return choiceOf(key, null, null);
      const fault = surveyCovariateFault(surveys, key);
      return choiceOf(key, fault?.question ?? null, fault ? FAULT_NOTES[fault.fault] : null);
    });
  return [...offered, ...extra];
}

/**
 * The checklist's sentence for a survey covariate that cannot be balanced on: what is wrong, that
 * participants could not be assigned, and the two ways out.
 */
export function surveyCovariateMessage(
  fault: SurveyCovariateFault,
  key: string,
  defaultLanguage: string,
): string {
  const asked = `“${questionLabel(fault.question, key, defaultLanguage)}”`;
  const remove = "or stop balancing on it under Assignment";
  switch (fault.fault) {
    case "no_active_pre_survey":
      return `Assignment balances on the pre-survey question ${asked}, but no pre-study survey is active, so participants could never be given an arm. Activate the pre-study survey that asks it, ${remove}.`;
    case "not_asked":
      return `Assignment balances on the pre-survey question ${asked}, which the active pre-study survey “${defaultText(fault.survey.name, defaultLanguage)}” does not ask, so participants could never be given an arm. Add it there as a single-choice question, ${remove}.`;
    case "not_single":
      return `Assignment balances on ${asked} of the pre-study survey, but participants ${fault.question.type === "multi" ? "may tick several answers" : "write their own answer"} there: only a single-choice question can be balanced on. Make it single-choice, ${remove}.`;
    default: {
      const _never: never = fault;
      return _never;
    }
  }
}
