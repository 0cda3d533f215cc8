/**
 * Checks a participant's answers against a survey's questions and expands them into the spec's Answer
 * records (Resources, Answer): `questionText` and each selection's `{id, text, value}` are snapshotted
 * from the survey as it is now, so later edits of the survey never alter stored answers.
 *
 * Pure, so the API (422 `invalid_answers`) and the participant form (checks before submit) agree.
 *
 * Rules (api.md, Surveys; the spec, Question):
 * - every required question of the survey is answered exactly once, and only questions of the survey
 *   are; an optional question (`required: false`) may be left out, or sent empty (no selections, a blank
 *   text), and is then not stored;
 * - single: exactly one option; multi: between minSelect and maxSelect options (maxSelect 0 = no upper
 *   bound), no option twice; options must be the question's own;
 * - text: no selections, and a `textInput` that is not blank.
 * A `textInput` sent with a single or multi question is not an error: it is ignored and stored as null.
 */

interface SurveyOption {
  readonly id: string;
  readonly text: string;
  readonly value: number;
}

export interface SurveyQuestion {
  readonly id: string;
  readonly text: string;
  readonly type: "single" | "multi" | "text";
  readonly minSelect?: number | null;
  readonly maxSelect?: number | null;
  readonly answers?: readonly SurveyOption[];
  /** false: the participant may skip it. Absent means required (surveys saved before the flag). */
  readonly required?: boolean;
}

/** Whether a question must be answered (the flag defaults to true). */
export const isRequired = (q: SurveyQuestion): boolean => q.required !== false;

/** An answer that says nothing: no selection and no written text (how an optional question is skipped). */
export const isEmptyAnswer = (a: AnswerSubmission): boolean =>
  (a.selections ?? []).length === 0 && (typeof a.textInput !== "string" || a.textInput.trim() === "");

/** What a participant sends per question. */
export interface AnswerSubmission {
  readonly questionId: string;
  readonly selections?: readonly string[];
  readonly textInput?: string | null;
}

/** The stored Answer of the spec. */
export interface AnswerRecord {
  questionId: string;
  questionText: string;
  selections: SurveyOption[];
  textInput: string | null;
}

type AnswerRule =
  | "unknown_question"
  | "duplicate_answer"
  | "missing_answer"
  | "unknown_option"
  | "duplicate_selection"
  | "single_needs_one"
  | "too_few_selections"
  | "too_many_selections"
  | "selections_on_text"
  | "text_required";

export interface AnswerProblem {
  /** `answers[1].selections`, or `answers` for a question left out. */
  readonly field: string;
  readonly question_id: string;
  readonly rule: AnswerRule;
  readonly message: string;
}

export type AnswerCheck = { ok: true; answers: AnswerRecord[] } | { ok: false; problems: AnswerProblem[] };

/** The selection bounds of a multi question as a sentence fragment: "between 1 and 3", "at least 2". */
export function selectionBounds(min: number, max: number): string {
  if (max > 0 && min === max) return `exactly ${min}`;
  if (max > 0 && min > 0) return `between ${min} and ${max}`;
  if (max > 0) return `at most ${max}`;
  return `at least ${min}`;
}

/** Checks one answer against its question; null when it is fine. */
export function checkAnswer(
  question: SurveyQuestion,
  answer: AnswerSubmission,
  field: string,
): AnswerProblem | null {
  const fail = (suffix: string, rule: AnswerRule, message: string): AnswerProblem => ({
    field: `${field}${suffix}`,
    question_id: question.id,
    rule,
    message,
  });
  const selections = answer.selections ?? [];
  if (question.type === "text") {
    if (selections.length > 0)
      return fail(".selections", "selections_on_text", "a text question takes no selections");
    if (typeof answer.textInput !== "string" || answer.textInput.trim() === "") {
      return fail(".textInput", "text_required", "this question needs a written answer");
    }
    return null;
  }
  const options = new Set((question.answers ?? []).map((o) => o.id));
  const seen = new Set<string>();
  for (const [m, id] of selections.entries()) {
    if (!options.has(id))
      return fail(`.selections[${m}]`, "unknown_option", `"${id}" is not an option of this question`);
    if (seen.has(id))
      return fail(`.selections[${m}]`, "duplicate_selection", `option "${id}" is selected twice`);
    seen.add(id);
  }
  if (question.type === "single") {
    return selections.length === 1
      ? null
      : fail(".selections", "single_needs_one", "choose exactly one option");
  }
  const min = question.minSelect ?? 0;
  const max = question.maxSelect ?? 0;
  if (selections.length < min) {
    return fail(".selections", "too_few_selections", `choose ${selectionBounds(min, max)} options`);
  }
  if (max > 0 && selections.length > max) {
    return fail(".selections", "too_many_selections", `choose ${selectionBounds(min, max)} options`);
  }
  return null;
}

/**
 * Checks every answer and, when all hold, returns the Answer records in the survey's question order.
 */
export function checkAnswers(
  questions: readonly SurveyQuestion[],
  submitted: readonly AnswerSubmission[],
): AnswerCheck {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const given = new Map<string, { answer: AnswerSubmission; index: number }>();
  const problems: AnswerProblem[] = [];
  submitted.forEach((answer, index) => {
    const field = `answers[${index}]`;
    const question = byId.get(answer.questionId);
    if (!question) {
      problems.push({
        field: `${field}.questionId`,
        question_id: answer.questionId,
        rule: "unknown_question",
        message: `"${answer.questionId}" is not a question of this survey`,
      });
      return;
    }
    if (given.has(question.id)) {
      problems.push({
        field: `${field}.questionId`,
        question_id: question.id,
        rule: "duplicate_answer",
        message: "this question is answered twice",
      });
      return;
    }
    given.set(question.id, { answer, index });
    if (!isRequired(question) && isEmptyAnswer(answer)) return;
    const problem = checkAnswer(question, answer, field);
    if (problem) problems.push(problem);
  });
  for (const q of questions) {
    if (!given.has(q.id) && isRequired(q)) {
      problems.push({
        field: "answers",
        question_id: q.id,
        rule: "missing_answer",
        message: "this question is not answered",
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const answered = questions.filter((q) => {
    const entry = given.get(q.id);
    return entry !== undefined && !(isEmptyAnswer(entry.answer) && !isRequired(q));
  });
  const answers = answered.map((q): AnswerRecord => {
    const entry = given.get(q.id);
    const selected = new Set(entry?.answer.selections ?? []);
    return {
      questionId: q.id,
      questionText: q.text,
      // Snapshot of each chosen option, in the order the question lists them.
      selections:
        q.type === "text"
          ? []
          : (q.answers ?? [])
              .filter((o) => selected.has(o.id))
              .map((o) => ({ id: o.id, text: o.text, value: o.value })),
      textInput: q.type === "text" ? (entry?.answer.textInput ?? null) : null,
    };
  });
  return { ok: true, answers };
}
