/**
 * Attention checks and straight-lining (api.md, "Data quality and validity"; issue 37), as pure
 * functions shared by the API (save-time check, 422 `invalid_survey`), the console's survey editor (the
 * same messages before saving) and the quality read model (passes, failures, straight-lined responses).
 *
 * A single or multi question may carry `attention_answer`: what an attentive participant answers, named
 * by option *values* (the numeric codes the exports carry), never by option ids:
 * - single: one value, e.g. `4` for "Please choose 'Agree' here";
 * - multi: a list of distinct values, all of which and nothing else an attentive participant ticks.
 * Absent or null: the question is no attention check. Participants are never sent it.
 */
import { checkSurveyShape, type ShapeProblem } from "./shape.ts";

/** The expected answer of an attention check: one option value (single) or a list of them (multi). */
type AttentionAnswer = number | readonly number[];

/** The part of a question the attention rules read. */
export interface AttentionQuestion {
  readonly id: string;
  readonly type: "single" | "multi" | "text";
  readonly minSelect?: number | null;
  readonly maxSelect?: number | null;
  readonly answers?: readonly { readonly value: number }[];
  readonly attention_answer?: AttentionAnswer | null;
}

/** The part of a stored answer (the spec's Answer record) the quality measures read. */
export interface AnsweredSelections {
  readonly questionId: string;
  /** The chosen options as snapshotted at submission: their values are what counts. */
  readonly selections: readonly { readonly value: number }[];
}

/** Stable codes of the attention rules (422 `invalid_survey`, `details.rule`). */
type AttentionRule =
  | "attention_answer_on_text"
  | "attention_answer_not_value"
  | "attention_answer_missing"
  | "attention_answer_duplicate"
  | "attention_answer_not_option"
  | "attention_answer_unreachable";

/** A broken attention rule, shaped as a shape problem so both are reported alike. */
export interface AttentionProblem extends Omit<ShapeProblem, "rule"> {
  readonly rule: AttentionRule;
}

/** Whether a question is an attention check. */
export const isAttentionCheck = (q: Pick<AttentionQuestion, "attention_answer">): boolean =>
  q.attention_answer !== undefined && q.attention_answer !== null;

/** The expected values of a check as a list (empty when the question is none). */
export function expectedValues(q: Pick<AttentionQuestion, "attention_answer">): readonly number[] {
  const a = q.attention_answer;
  if (a === undefined || a === null) return [];
  return typeof a === "number" ? [a] : a;
}

/**
 * Every attention problem of a question list, one per question at most, in question order. Expects a
 * list that obeys the shape rules (`checkSurveyShape` runs first): options exist and carry numbers.
 * Rules: only single and multi questions are checks; single expects one number, multi a non-empty list
 * of distinct numbers; every value is the value of one of the question's own options; a multi check can
 * be met within its minSelect..maxSelect bounds (else no participant could pass it).
 */
export function checkAttentionAnswers(questions: readonly AttentionQuestion[]): AttentionProblem[] {
  const problems: AttentionProblem[] = [];
  questions.forEach((q, i) => {
    const problem = checkQuestion(q, i);
    if (problem) problems.push(problem);
  });
  return problems;
}

function checkQuestion(q: AttentionQuestion, i: number): AttentionProblem | null {
  const a: unknown = q.attention_answer;
  if (a === undefined || a === null) return null;
  const fail = (rule: AttentionRule, message: string): AttentionProblem => ({
    field: `questions[${i}].attention_answer`,
    question_index: i,
    question_id: q.id,
    rule,
    message,
  });
  if (q.type === "text") {
    return fail("attention_answer_on_text", "a text question cannot be an attention check");
  }
  const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
  if (q.type === "single" && !isNumber(a)) {
    return Array.isArray(a) && a.length === 0
      ? fail("attention_answer_missing", "choose the answer an attentive participant gives")
      : fail("attention_answer_not_value", "a single-choice attention check expects one option value");
  }
  if (q.type === "multi" && !(Array.isArray(a) && a.every(isNumber))) {
    return fail(
      "attention_answer_not_value",
      "a multiple-choice attention check expects a list of option values",
    );
  }
  const values = expectedValues({ attention_answer: a as AttentionAnswer });
  if (values.length === 0) {
    return fail("attention_answer_missing", "choose the answers an attentive participant gives");
  }
  if (new Set(values).size !== values.length) {
    return fail("attention_answer_duplicate", "each expected value may appear once");
  }
  const optionValues = (q.answers ?? []).map((o) => o.value);
  const unknown = values.find((v) => !optionValues.includes(v));
  if (unknown !== undefined) {
    return fail("attention_answer_not_option", `${unknown} is not the value of an option of this question`);
  }
  if (q.type === "multi") {
    // The fewest options that show every expected value, and the most options carrying only those.
    const fewest = values.length;
    const most = optionValues.filter((v) => values.includes(v)).length;
    const min = q.minSelect ?? 0;
    const max = q.maxSelect ?? 0;
    if (most < min || (max > 0 && fewest > max)) {
      return fail(
        "attention_answer_unreachable",
        "the expected answers do not fit the question's minimum and maximum selections",
      );
    }
  }
  return null;
}

/** What a response chose: per question id, the chosen options' values in the order chosen. */
export type ChosenValues = Readonly<Record<string, readonly number[]>>;

/** The verdict of an attention check on the values chosen (see `attentionResult`). */
function verdict(expected: ReadonlySet<number>, values: readonly number[]): "passed" | "failed" | null {
  if (values.length === 0) return null;
  const chosen = new Set(values);
  const same = chosen.size === expected.size && [...chosen].every((v) => expected.has(v));
  return same ? "passed" : "failed";
}

/**
 * Whether an answer passes an attention check: `passed` when the chosen options' values are exactly the
 * expected ones (single: the one value; multi: the same set of values, nothing missing, nothing more),
 * `failed` otherwise; null when the question is no check or was not answered (an optional check left
 * out, or sent empty). Reads the values of the answer's own snapshot, so a later edit of the survey's
 * options does not change a verdict.
 */
export function attentionResult(
  question: Pick<AttentionQuestion, "attention_answer">,
  answer: Pick<AnsweredSelections, "selections"> | null | undefined,
): "passed" | "failed" | null {
  if (!isAttentionCheck(question) || !answer) return null;
  return verdict(
    new Set(expectedValues(question)),
    answer.selections.map((s) => s.value),
  );
}

/** The fewest items of one answer scale that make straight-lining measurable (api.md). */
const STRAIGHT_LINE_MIN_ITEMS = 5;

/** A response's measures as `responseJudge` gives them. */
export interface ResponseVerdict {
  readonly straight_lined: boolean;
  readonly passed: number;
  readonly failed: number;
}

/**
 * A survey's questions made ready to judge many responses (the quality measures of a whole experiment):
 * the straight-lining items grouped by answer scale, and the attention checks with their expected
 * values, found once. The judge gives what `straightLined` and `attentionResult` give for each response;
 * null for a survey with nothing to judge (no attention check, no scale of 5 items or more), whose
 * responses then need not be read.
 */
export function responseJudge(
  questions: readonly AttentionQuestion[],
): ((chosen: ChosenValues) => ResponseVerdict) | null {
  /** Scale (its value list as text) -> the ids of its items. */
  const scales = new Map<string, string[]>();
  for (const q of questions) {
    if (q.type !== "single" || isAttentionCheck(q)) continue;
    const scale = JSON.stringify((q.answers ?? []).map((o) => o.value));
    scales.set(scale, [...(scales.get(scale) ?? []), q.id]);
  }
  const items = [...scales.values()].filter((ids) => ids.length >= STRAIGHT_LINE_MIN_ITEMS);
  const checks = questions
    .filter(isAttentionCheck)
    .map((q) => ({ id: q.id, expected: new Set(expectedValues(q)) }));
  if (items.length === 0 && checks.length === 0) return null;
  const first = (chosen: ChosenValues, id: string) =>
    Object.hasOwn(chosen, id) ? chosen[id]?.[0] : undefined;
  return (chosen) => {
    const straight = items.some((ids) => {
      const answered = ids.map((id) => first(chosen, id)).filter((v) => v !== undefined);
      return answered.length >= STRAIGHT_LINE_MIN_ITEMS && answered.every((v) => v === answered[0]);
    });
    let passed = 0;
    let failed = 0;
    for (const c of checks) {
      const result = Object.hasOwn(chosen, c.id) ? verdict(c.expected, chosen[c.id] ?? []) : null;
      if (result === "passed") passed++;
      else if (result === "failed") failed++;
    }
    return { straight_lined: straight, passed, failed };
  };
}

/**
 * Whether a response is straight-lined (api.md, "Data quality and validity": a survey's single-choice
 * items that share one answer scale, 5 or more items, attention checks aside, all answered with the same
 * value).
 *
 * Definitions, so the measure can be reported in a paper:
 * - an item is a single-choice question that is not an attention check;
 * - two items share one answer scale when their options carry identical value lists, in the order the
 *   options are shown (`[1,2,3,4,5]`; a reversed `[5,4,3,2,1]` is another scale). Option texts do
 *   not matter: an agreement and a frequency scale both coded 1 to 5 are one scale;
 * - a scale counts when the participant answered 5 or more of its items (optional items left out do
 *   not count towards the 5);
 * - the response is straight-lined when, for any scale that counts, every answered item of it carries
 *   the same value. Several scales: any one all alike is enough.
 * Values come from the answers' own snapshots; the scales from `questions` (the survey as given).
 */
export function straightLined(
  questions: readonly AttentionQuestion[],
  answers: readonly AnsweredSelections[],
): boolean {
  const chosen = Object.fromEntries(answers.map((a) => [a.questionId, a.selections.map((s) => s.value)]));
  return responseJudge(questions)?.(chosen).straight_lined ?? false;
}

/** A problem of a question list: a broken shape rule or a broken attention rule. */
export type SurveyProblem = ShapeProblem | AttentionProblem;

/**
 * Every problem of a question list as the API reports it (422 `invalid_survey`): the shape rules, then
 * the attention rules of the questions whose shape holds, one problem per question, in question order.
 */
export function checkSurveyQuestions(questions: unknown): SurveyProblem[] {
  const shape = checkSurveyShape(questions);
  if (!Array.isArray(questions)) return shape;
  const broken = new Set(shape.map((p) => p.question_index));
  const attention = checkAttentionAnswers(questions as AttentionQuestion[]).filter(
    (p) => !broken.has(p.question_index),
  );
  return [...shape, ...attention].sort((a, b) => (a.question_index ?? -1) - (b.question_index ?? -1));
}
