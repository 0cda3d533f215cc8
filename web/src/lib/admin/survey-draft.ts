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
  }));
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
