/**
 * The survey editor's working copy: questions and options carry a client-side key (stable across
 * reordering and id edits) and may hold values the shape rules refuse (an empty value, missing bounds),
 * so the editor can show the same problems the server would.
 */

import { textIn } from "@feedlab/schemas/http/localized-text.ts";
import { expectedValues, type SurveyProblem } from "@feedlab/schemas/surveys/attention.ts";
import type { ShapeProblem } from "@feedlab/schemas/surveys/shape.ts";
import type {
  AnswerOption,
  ParticipantQuestion,
  Question,
  QuestionType,
  Survey,
} from "../../survey/types.ts";
import { sentText, type Texts, textsOf } from "../texts/texts.ts";

export interface DraftOption {
  key: number;
  id: string;
  /** The option's text in each of the study's languages. */
  text: Texts;
  /** null while the number field is empty. */
  value: number | null;
}

export interface DraftQuestion {
  key: number;
  id: string;
  /** The question's text in each of the study's languages. */
  text: Texts;
  type: QuestionType;
  minSelect: number | null;
  maxSelect: number | null;
  /** Kept while the type is text, so switching back does not lose them; not sent for text. */
  answers: DraftOption[];
  /** false: participants may skip the question. */
  required: boolean;
  /**
   * null: no attention check. Otherwise the keys of the options an attentive participant chooses
   * (single: at most one), so the choice follows an option whose value or text is edited; sent as the
   * options' values. Kept while the type is text, as the options are; not sent for text.
   */
  attention: number[] | null;
}

let nextKey = 1;
const key = () => nextKey++;

/** The first `<prefix><n>` not in `taken`. */
function freshId(prefix: string, taken: readonly string[]): string {
  for (let n = taken.length + 1; ; n++) {
    const id = `${prefix}${n}`;
    if (!taken.includes(id)) return id;
  }
}

export function newOption(existing: readonly DraftOption[], value?: number): DraftOption {
  return {
    key: key(),
    id: freshId(
      "a",
      existing.map((o) => o.id),
    ),
    text: {},
    value: value ?? existing.length + 1,
  };
}

export function newQuestion(
  existing: readonly DraftQuestion[],
  type: QuestionType = "single",
): DraftQuestion {
  const question: DraftQuestion = {
    key: key(),
    id: freshId(
      "q",
      existing.map((q) => q.id),
    ),
    text: {},
    type,
    minSelect: type === "multi" ? 1 : null,
    maxSelect: type === "multi" ? 0 : null,
    answers: [],
    required: true,
    attention: null,
  };
  if (type !== "text") question.answers = [newOption([])];
  return question;
}

/** A survey's questions as the editor works on them; a plain text is the default language's. */
export function toDraft(survey: Pick<Survey, "questions">, defaultLanguage: string): DraftQuestion[] {
  return survey.questions.map((q) => {
    const answers = q.answers.map((o) => ({
      key: key(),
      id: o.id,
      text: textsOf(o.text, defaultLanguage),
      value: o.value,
    }));
    const expected = expectedValues(q);
    const matching = answers.filter((o) => expected.includes(o.value)).map((o) => o.key);
    return {
      key: key(),
      id: q.id,
      text: textsOf(q.text, defaultLanguage),
      type: q.type,
      minSelect: q.minSelect,
      maxSelect: q.maxSelect,
      answers,
      required: q.required !== false,
      attention:
        q.attention_answer === undefined || q.attention_answer === null
          ? null
          : q.type === "single"
            ? matching.slice(0, 1)
            : matching,
    };
  });
}

/**
 * What an attention check sends (`attention_answer`), or undefined for no check: single, the chosen
 * option's value (an empty list while none is chosen, so the rules ask for one); multi, the distinct
 * values of the chosen options.
 */
function attentionOf(q: DraftQuestion): Question["attention_answer"] {
  if (q.attention === null || q.type === "text") return undefined;
  const chosen = q.attention;
  const values = q.answers.filter((o) => chosen.includes(o.key)).map((o) => o.value as number);
  if (q.type === "single") return values[0] ?? [];
  return [...new Set(values)];
}

/**
 * The questions as the API takes them. Bounds are sent for multi only and options for single and
 * multi only. Empty values stay null, so the shape check reports them as the server would. A text
 * is a plain string while only the default language has one (`sentText`).
 */
export function fromDraft(questions: readonly DraftQuestion[], defaultLanguage: string): Question[] {
  return questions.map((q) => ({
    id: q.id.trim(),
    text: sentText(q.text, defaultLanguage),
    type: q.type,
    minSelect: q.type === "multi" ? q.minSelect : null,
    maxSelect: q.type === "multi" ? q.maxSelect : null,
    answers:
      q.type === "text"
        ? []
        : q.answers.map((o) => ({
            id: o.id,
            text: sentText(o.text, defaultLanguage),
            value: o.value as AnswerOption["value"],
          })),
    required: q.required,
    ...(attentionOf(q) === undefined ? {} : { attention_answer: attentionOf(q) }),
  }));
}

/**
 * The questions as a participant reading `language` receives them (the preview): each text in that
 * language, else the default language's, as the server resolves them.
 */
export function previewQuestions(
  questions: readonly Question[],
  language: string,
  defaultLanguage: string,
): ParticipantQuestion[] {
  return questions.map(({ attention_answer: _hidden, ...q }) => ({
    ...q,
    text: textIn(q.text, language, defaultLanguage),
    answers: q.answers.map((o) => ({ ...o, text: textIn(o.text, language, defaultLanguage) })),
  }));
}

/** The labels of the Likert templates: agreement on 5 or 7 points, coded 1 to N. */
export const LIKERT_LABELS: Readonly<Record<5 | 7, readonly string[]>> = {
  5: ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"],
  7: [
    "Strongly disagree",
    "Disagree",
    "Somewhat disagree",
    "Neither agree nor disagree",
    "Somewhat agree",
    "Agree",
    "Strongly agree",
  ],
};

/**
 * A single-choice agreement question on a 5- or 7-point Likert scale, its options valued 1 to N and
 * labelled in English (`language`: the study's English, or its default language's slot).
 */
export function likertQuestion(
  existing: readonly DraftQuestion[],
  points: 5 | 7,
  language: string,
): DraftQuestion {
  const question = newQuestion(existing, "single");
  question.answers = LIKERT_LABELS[points].map((text, i) => ({
    key: key(),
    id: `a${i + 1}`,
    text: { [language]: text },
    value: i + 1,
  }));
  return question;
}

/** Switching to multi fills in bounds a researcher can start from (at least 1, no upper bound). */
export function withType(q: DraftQuestion, type: QuestionType): DraftQuestion {
  const next = { ...q, type };
  if (type === "multi") {
    next.minSelect = q.minSelect ?? 1;
    next.maxSelect = q.maxSelect ?? 0;
  }
  if (type !== "text" && next.answers.length === 0) next.answers = [newOption([])];
  // A single-choice check expects one answer: the first of a multi check's stays.
  if (type === "single" && next.attention) next.attention = next.attention.slice(0, 1);
  return next;
}

/** Moves item `from` by `by` places (clamped). */
export function move<T>(items: readonly T[], from: number, by: number): T[] {
  const to = Math.max(0, Math.min(items.length - 1, from + by));
  const copy = [...items];
  const [item] = copy.splice(from, 1);
  if (item !== undefined) copy.splice(to, 0, item);
  return copy;
}

/** The option number (1-based) a shape problem's field names, if any: `questions[0].answers[2].text` -> 3. */
const optionNumber = (field: string): number | null => {
  const m = /\.answers\[(\d+)\]/.exec(field);
  return m?.[1] === undefined ? null : Number(m[1]) + 1;
};

/**
 * A shape problem in the words of the editor's own labels ("Minimum selections", "Option 2 text"),
 * not the API's field names (`minSelect`, `answers[1].text`).
 */
export function editorMessage(p: SurveyProblem): string {
  const option = optionNumber(p.field);
  switch (p.rule) {
    case "question_id_required":
      return "Give the question an ID: it names the question's column in the CSV export.";
    case "question_id_duplicate":
      return `Another question already has the ID “${p.question_id ?? ""}”: choose a different Question ID.`;
    case "question_text_required":
      return "Write the question text.";
    case "text_has_answers":
      return "A free-text question has no answer options.";
    case "options_required":
      return "Add at least one answer option.";
    case "option_id_required":
    case "option_id_duplicate":
      return `Option ${option ?? ""} needs an ID of its own. Remove it and add it again.`;
    case "option_text_required":
      return `Write the text of option ${option ?? ""}.`;
    case "option_value_not_number":
      return `Give option ${option ?? ""} a number in Value (for example 1 to 5 for a scale).`;
    case "select_bounds_required":
      return "Fill in both Minimum selections and Maximum selections (0 means no limit).";
    case "select_bound_negative":
      return "Minimum and Maximum selections cannot be negative.";
    case "select_min_above_max":
      return "Minimum selections cannot be more than Maximum selections.";
    case "select_min_above_options":
      return "Minimum selections cannot be more than the number of options.";
    case "attention_answer_on_text":
      return "A free-text question cannot be an attention check.";
    case "attention_answer_missing":
      return "Choose the answer an attentive participant gives, or untick Attention check.";
    case "attention_answer_not_value":
    case "attention_answer_duplicate":
    case "attention_answer_not_option":
      return "The expected answer must be one of this question's options: choose it again.";
    case "attention_answer_unreachable":
      return "No participant could give these expected answers within Minimum and Maximum selections.";
    default:
      return p.message.charAt(0).toUpperCase() + p.message.slice(1);
  }
}

/**
 * Where the editor shows a shape problem: under the field its `field` names. `option` is the option's
 * index and `part` its input (an option's id has no field of its own, so its text input stands in);
 * `question` is the card itself, for a problem no field holds.
 */
export type ProblemPlace =
  | {
      readonly field:
        | "text"
        | "id"
        | "type"
        | "minSelect"
        | "maxSelect"
        | "answers"
        | "attention_answer"
        | "question";
    }
  | { readonly field: "option"; readonly option: number; readonly part: "text" | "value" };

const QUESTION_FIELDS = [
  "text",
  "id",
  "type",
  "minSelect",
  "maxSelect",
  "answers",
  "attention_answer",
] as const;
type QuestionField = (typeof QUESTION_FIELDS)[number];
const isQuestionField = (name: string | undefined): name is QuestionField =>
  QUESTION_FIELDS.includes(name as QuestionField);

/** `questions[1].answers[2].value` -> option 2's value input; `questions[0].minSelect` -> Minimum selections. */
export function problemPlace(p: Pick<ShapeProblem, "field">): ProblemPlace {
  const m = /^questions\[\d+\](?:\.(\w+)(?:\[(\d+)\](?:\.(\w+))?)?)?$/.exec(p.field);
  const [, name, option, part] = m ?? [];
  if (name === "answers" && option !== undefined) {
    return { field: "option", option: Number(option), part: part === "value" ? "value" : "text" };
  }
  return { field: isQuestionField(name) ? name : "question" };
}
