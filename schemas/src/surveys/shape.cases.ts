import type { ShapeRule } from "./shape.ts";

/**
 * Question lists that break one shape rule each, with the rule and field expected. The unit tests run
 * them through `checkSurveyShape`, the storage tests through the database trigger: both must agree.
 */
export interface BadShapeCase {
  readonly name: string;
  readonly questions: unknown;
  readonly rule: ShapeRule;
  readonly field: string;
  readonly question_id: string | null;
}

const single = {
  id: "q1",
  text: "How was it?",
  type: "single",
  answers: [{ id: "a", text: "Good", value: 1 }],
};
const option = (id: string, value = 1) => ({ id, text: `Option ${id}`, value });

export const BAD_SHAPES: readonly BadShapeCase[] = [
  {
    name: "questions is not a list",
    questions: { q: 1 },
    rule: "questions_not_list",
    field: "questions",
    question_id: null,
  },
  {
    name: "a question is not an object",
    questions: [single, "q2"],
    rule: "question_not_object",
    field: "questions[1]",
    question_id: null,
  },
  {
    name: "a question without id",
    questions: [{ ...single, id: " " }],
    rule: "question_id_required",
    field: "questions[0].id",
    question_id: null,
  },
  {
    name: "two questions with one id",
    questions: [single, { ...single }],
    rule: "question_id_duplicate",
    field: "questions[1].id",
    question_id: "q1",
  },
  {
    name: "a question without text",
    questions: [{ ...single, text: "\t" }],
    rule: "question_text_required",
    field: "questions[0].text",
    question_id: "q1",
  },
  {
    name: "a question whose text in one language is blank",
    questions: [{ ...single, text: { en: "How was it?", de: " " } }],
    rule: "question_text_required",
    field: "questions[0].text",
    question_id: "q1",
  },
  {
    name: "a question whose texts by language are none",
    questions: [{ ...single, text: {} }],
    rule: "question_text_required",
    field: "questions[0].text",
    question_id: "q1",
  },
  {
    name: "an unknown type",
    questions: [{ ...single, type: "dropdown" }],
    rule: "question_type_unknown",
    field: "questions[0].type",
    question_id: "q1",
  },
  {
    name: "answers that are not a list",
    questions: [{ ...single, answers: {} }],
    rule: "answers_not_list",
    field: "questions[0].answers",
    question_id: "q1",
  },
  {
    name: "a text question with answers",
    questions: [single, { id: "q2", text: "Why?", type: "text", answers: [option("a")] }],
    rule: "text_has_answers",
    field: "questions[1].answers",
    question_id: "q2",
  },
  {
    name: "a single question without options",
    questions: [{ ...single, answers: [] }],
    rule: "options_required",
    field: "questions[0].answers",
    question_id: "q1",
  },
  {
    name: "a multi question without options",
    questions: [{ id: "m", text: "Pick", type: "multi", minSelect: 0, maxSelect: 0, answers: [] }],
    rule: "options_required",
    field: "questions[0].answers",
    question_id: "m",
  },
  {
    name: "a multi question without minSelect and maxSelect",
    questions: [{ id: "m", text: "Pick", type: "multi", answers: [option("a"), option("b")] }],
    rule: "select_bounds_required",
    field: "questions[0].minSelect",
    question_id: "m",
  },
  {
    name: "a multi question without maxSelect",
    questions: [
      { id: "m", text: "Pick", type: "multi", minSelect: 1, maxSelect: null, answers: [option("a")] },
    ],
    rule: "select_bounds_required",
    field: "questions[0].maxSelect",
    question_id: "m",
  },
  {
    name: "a multi question with a fractional bound",
    questions: [
      { id: "m", text: "Pick", type: "multi", minSelect: 0.5, maxSelect: 2, answers: [option("a")] },
    ],
    rule: "select_bounds_required",
    field: "questions[0].minSelect",
    question_id: "m",
  },
  {
    name: "a negative minSelect",
    questions: [
      { id: "m", text: "Pick", type: "multi", minSelect: -1, maxSelect: 2, answers: [option("a")] },
    ],
    rule: "select_bound_negative",
    field: "questions[0].minSelect",
    question_id: "m",
  },
  {
    name: "minSelect above maxSelect",
    questions: [
      {
        id: "m",
        text: "Pick",
        type: "multi",
        minSelect: 3,
        maxSelect: 2,
        answers: [option("a"), option("b"), option("c")],
      },
    ],
    rule: "select_min_above_max",
    field: "questions[0].minSelect",
    question_id: "m",
  },
  {
    name: "minSelect above the number of options",
    questions: [
      {
        id: "m",
        text: "Pick",
        type: "multi",
        minSelect: 3,
        maxSelect: 0,
        answers: [option("a"), option("b")],
      },
    ],
    rule: "select_min_above_options",
    field: "questions[0].minSelect",
    question_id: "m",
  },
  {
    name: "an option that is not an object",
    questions: [{ ...single, answers: [option("a"), 7] }],
    rule: "option_not_object",
    field: "questions[0].answers[1]",
    question_id: "q1",
  },
  {
    name: "an option without id",
    questions: [{ ...single, answers: [{ text: "A", value: 1 }] }],
    rule: "option_id_required",
    field: "questions[0].answers[0].id",
    question_id: "q1",
  },
  {
    name: "two options with one id",
    questions: [{ ...single, answers: [option("a"), option("a", 2)] }],
    rule: "option_id_duplicate",
    field: "questions[0].answers[1].id",
    question_id: "q1",
  },
  {
    name: "an option without text",
    questions: [{ ...single, answers: [{ id: "a", text: "", value: 1 }] }],
    rule: "option_text_required",
    field: "questions[0].answers[0].text",
    question_id: "q1",
  },
  {
    name: "an option whose text in one language is not text",
    questions: [{ ...single, answers: [{ id: "a", text: { en: "A", de: 1 }, value: 1 }] }],
    rule: "option_text_required",
    field: "questions[0].answers[0].text",
    question_id: "q1",
  },
  {
    name: "an option whose value is not a number",
    questions: [{ ...single, answers: [{ id: "a", text: "A", value: "5" }] }],
    rule: "option_value_not_number",
    field: "questions[0].answers[0].value",
    question_id: "q1",
  },
];

/** Question lists that obey every rule, edge cases included. */
export const GOOD_SHAPES: readonly { readonly name: string; readonly questions: unknown }[] = [
  { name: "no questions at all", questions: [] },
  {
    name: "a question and its options written in two languages",
    questions: [
      {
        ...single,
        text: { en: "How was it?", de: "Wie war es?" },
        answers: [{ id: "a", text: { en: "Good", de: "Gut" }, value: 1 }],
      },
    ],
  },
  {
    name: "a single question with min and max, which it ignores",
    questions: [{ ...single, minSelect: "x", maxSelect: -4 }],
  },
  { name: "a text question without answers field", questions: [{ id: "t", text: "Why?", type: "text" }] },
  {
    name: "a text question with null answers",
    questions: [{ id: "t", text: "Why?", type: "text", answers: null }],
  },
  {
    name: "a multi question with maxSelect 0 (no upper bound) and minSelect 0",
    questions: [{ id: "m", text: "Pick", type: "multi", minSelect: 0, maxSelect: 0, answers: [option("a")] }],
  },
  {
    name: "a multi question whose maxSelect exceeds its options",
    questions: [
      {
        id: "m",
        text: "Pick",
        type: "multi",
        minSelect: 1,
        maxSelect: 5,
        answers: [option("a"), option("b")],
      },
    ],
  },
  {
    name: "options with negative, zero and fractional values",
    questions: [{ ...single, answers: [option("a", -2.5), option("b", 0), option("c", 0.125)] }],
  },
  {
    name: "the same option id in two questions",
    questions: [single, { ...single, id: "q2" }],
  },
];
