/**
 * The survey editor's working copy: questions and options carry a client-side key (stable across
 * reordering and id edits) and may hold values the shape rules refuse (an empty value, missing bounds),
 * so the editor can show the same problems the server would.
 */
import type { AnswerOption, Question, QuestionType, Survey } from "../survey/types.ts";

export interface DraftOption {
  key: number;
  id: string;
  text: string;
  /** null while the number field is empty. */
  value: number | null;
}

export interface DraftQuestion {
  key: number;
  id: string;
  text: string;
  type: QuestionType;
  minSelect: number | null;
  maxSelect: number | null;
  /** Kept while the type is text, so switching back does not lose them; not sent for text. */
  answers: DraftOption[];
  /** false: participants may skip the question. */
  required: boolean;
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
    text: "",
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
    text: "",
    type,
    minSelect: type === "multi" ? 1 : null,
    maxSelect: type === "multi" ? 0 : null,
    answers: [],
    required: true,
  };
  if (type !== "text") question.answers = [newOption([])];
  return question;
}

export function toDraft(survey: Pick<Survey, "questions">): DraftQuestion[] {
  return survey.questions.map((q) => ({
    key: key(),
    id: q.id,
    text: q.text,
    type: q.type,
    minSelect: q.minSelect,
    maxSelect: q.maxSelect,
    answers: q.answers.map((o) => ({ key: key(), id: o.id, text: o.text, value: o.value })),
    required: q.required !== false,
  }));
}

/**
 * The questions as the API takes them. Bounds are sent for multi only and options for single and
 * multi only. Empty values stay null, so the shape check reports them as the server would.
 */
export function fromDraft(questions: readonly DraftQuestion[]): Question[] {
  return questions.map((q) => ({
    id: q.id.trim(),
    text: q.text,
    type: q.type,
    minSelect: q.type === "multi" ? q.minSelect : null,
    maxSelect: q.type === "multi" ? q.maxSelect : null,
    answers:
      q.type === "text"
        ? []
        : q.answers.map((o) => ({ id: o.id, text: o.text, value: o.value as AnswerOption["value"] })),
    required: q.required,
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

/** A single-choice agreement question on a 5- or 7-point Likert scale, its options valued 1 to N. */
export function likertQuestion(existing: readonly DraftQuestion[], points: 5 | 7): DraftQuestion {
  const question = newQuestion(existing, "single");
  question.answers = LIKERT_LABELS[points].map((text, i) => ({
    key: key(),
    id: `a${i + 1}`,
    text,
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
