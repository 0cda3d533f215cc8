/**
 * The Question shape rules of the spec (Resources, Question), as one pure function shared by the API
 * (save-time check, 422 `invalid_survey`), the admin editor (the same messages before saving) and the
 * tests that hold the database trigger of migration 020 to the same rules.
 *
 * | type   | rendering | answers                   | minSelect / maxSelect                     |
 * |--------|-----------|---------------------------|-------------------------------------------|
 * | single | radio     | at least 1 option         | ignored                                   |
 * | multi  | checkbox  | at least 1 option         | both required; maxSelect 0 = no upper bound |
 * | text   | textarea  | must be empty             | not used                                  |
 *
 * Keep in step with `feedlab_survey_shape_problem` (migration 020, its texts by 035): same
 * checks, same order, same rule codes and fields (a parity test runs every bad case through both).
 */

export const SURVEY_KINDS = ["pre", "post", "inter_session"] as const;

/** Stable codes of the shape rules. */
export type ShapeRule =
  | "questions_not_list"
  | "question_not_object"
  | "question_id_required"
  | "question_id_duplicate"
  | "question_text_required"
  | "question_type_unknown"
  | "answers_not_list"
  | "text_has_answers"
  | "options_required"
  | "option_not_object"
  | "option_id_required"
  | "option_id_duplicate"
  | "option_text_required"
  | "option_value_not_number"
  | "select_bounds_required"
  | "select_bound_negative"
  | "select_min_above_max"
  | "select_min_above_options";

/** One broken rule: where (`questions[2].answers`), which question, which rule, and a sentence. */
export interface ShapeProblem {
  readonly field: string;
  readonly question_index: number | null;
  readonly question_id: string | null;
  readonly rule: ShapeRule;
  readonly message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** Blank = empty or ASCII whitespace only; the trigger uses the same class (locale-independent). */
const BLANK = /^[ \t\n\r\f\v]*$/;
const nonBlank = (v: unknown): v is string => typeof v === "string" && !BLANK.test(v);
/**
 * A text a participant can read: a non-blank string, or one per language (`{"en": "…"}`), at least one
 * and each non-blank (api.md "Participant languages"). The trigger's twin is `feedlab_text_present`
 * (migration 035).
 */
const isPresentText = (v: unknown): boolean =>
  nonBlank(v) || (isObject(v) && Object.keys(v).length > 0 && Object.values(v).every(nonBlank));
const isWholeNumber = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * Every shape problem of a question list, in order (question by question, the first-listed rule of
 * each question first). Accepts anything, so it can judge raw JSON as the database trigger does.
 * Only the first problem of each question is reported: later rules assume earlier ones hold.
 */
export function checkSurveyShape(questions: unknown): ShapeProblem[] {
  if (!Array.isArray(questions)) {
    return [
      {
        field: "questions",
        question_index: null,
        question_id: null,
        rule: "questions_not_list",
        message: "questions must be a list",
      },
    ];
  }
  const problems: ShapeProblem[] = [];
  const seenIds = new Set<string>();
  questions.forEach((q: unknown, i: number) => {
    const problem = checkQuestion(q, i, seenIds);
    if (problem) problems.push(problem);
  });
  return problems;
}

function checkQuestion(q: unknown, i: number, seenIds: Set<string>): ShapeProblem | null {
  const at = `questions[${i}]`;
  if (!isObject(q)) return problem(at, i, null, "question_not_object", "each question must be an object");
  const id = nonBlank(q.id) ? q.id : null;
  const fail = (field: string, rule: ShapeRule, message: string) =>
    problem(`${at}${field}`, i, id, rule, message);
  if (id === null) return fail(".id", "question_id_required", "the question needs an id");
  if (seenIds.has(id)) return fail(".id", "question_id_duplicate", `question id "${id}" is used twice`);
  seenIds.add(id);
  if (!isPresentText(q.text)) return fail(".text", "question_text_required", "the question needs a text");
  const type = q.type;
  if (type !== "single" && type !== "multi" && type !== "text") {
    return fail(".type", "question_type_unknown", "type must be single, multi or text");
  }
  const answers = q.answers ?? [];
  if (!Array.isArray(answers)) return fail(".answers", "answers_not_list", "answers must be a list");
  if (type === "text") {
    return answers.length > 0
      ? fail(".answers", "text_has_answers", "a text question must have no answer options")
      : null;
  }
  if (answers.length === 0) {
    return fail(".answers", "options_required", `a ${type} question needs at least one answer option`);
  }
  const seenOptions = new Set<string>();
  for (const [j, o] of answers.entries()) {
    const oat = `.answers[${j}]`;
    if (!isObject(o)) return fail(oat, "option_not_object", "each answer option must be an object");
    if (!nonBlank(o.id)) return fail(`${oat}.id`, "option_id_required", "the answer option needs an id");
    if (seenOptions.has(o.id)) {
      return fail(`${oat}.id`, "option_id_duplicate", `answer option id "${o.id}" is used twice`);
    }
    seenOptions.add(o.id);
    if (!isPresentText(o.text))
      return fail(`${oat}.text`, "option_text_required", "the answer option needs a text");
    if (typeof o.value !== "number" || !Number.isFinite(o.value)) {
      return fail(`${oat}.value`, "option_value_not_number", "the answer option needs a numeric value");
    }
  }
  if (type === "single") return null;
  // multi: both bounds are whole numbers >= 0; maxSelect 0 means no upper bound.
  const min = q.minSelect;
  const max = q.maxSelect;
  if (!isWholeNumber(min)) {
    return fail(".minSelect", "select_bounds_required", "a multi question needs minSelect and maxSelect");
  }
  if (!isWholeNumber(max)) {
    return fail(".maxSelect", "select_bounds_required", "a multi question needs minSelect and maxSelect");
  }
  if (min < 0) return fail(".minSelect", "select_bound_negative", "minSelect must not be negative");
  if (max < 0) return fail(".maxSelect", "select_bound_negative", "maxSelect must not be negative");
  if (max > 0 && min > max) {
    return fail(".minSelect", "select_min_above_max", "minSelect must not be greater than maxSelect");
  }
  if (min > answers.length) {
    return fail(
      ".minSelect",
      "select_min_above_options",
      "minSelect must not be greater than the number of answer options",
    );
  }
  return null;
}

function problem(
  field: string,
  index: number,
  id: string | null,
  rule: ShapeRule,
  message: string,
): ShapeProblem {
  return { field, question_index: index, question_id: id, rule, message };
}

/** "questions[2].answers: a text question must have no answer options" */
export const describeShapeProblem = (p: ShapeProblem): string => `${p.field}: ${p.message}`;
