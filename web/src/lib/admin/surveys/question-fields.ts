import type { SurveyProblem } from "@feedlab/schemas/surveys/attention.ts";
import { editorMessage, problemPlace } from "./survey-draft.ts";

/**
 * Where a question card shows its problem. The problem shows right under the field it is about (a
 * "slot": `text`, `id`, `type`, `minSelect`, `maxSelect`, `answers`, `attention_answer`, `option-<j>`,
 * or `question` for the card itself), and that field carries aria-invalid and an aria-describedby
 * naming the message.
 */
export interface QuestionFields {
  /** The id of the message under `slot`. */
  errorId(slot: string): string;
  /** The message under `slot`, if the question's problem belongs there. */
  errorAt(slot: string): string | undefined;
  invalid(slot: string): "true" | undefined;
  /** `aria-describedby` of a field: its hint, then its error when it has one. */
  describedBy(slot: string, hint?: string): string | undefined;
  /** Option `j`'s text or value input is the invalid one (an option id problem marks its text). */
  optionInvalid(j: number, part: "text" | "value"): "true" | undefined;
  optionDescribedBy(j: number, part: "text" | "value"): string | undefined;
}

/** The fields of question `index` (0-based, as its inputs' ids), given its problem if it has one. */
export function questionFields(index: number, problem: SurveyProblem | undefined): QuestionFields {
  const place = problem ? problemPlace(problem) : undefined;
  const slot = place ? (place.field === "option" ? `option-${place.option}` : place.field) : undefined;
  const errorId = (s: string) => `question-${index}-${s}-error`;
  const errorAt = (s: string) => (problem && slot === s ? editorMessage(problem) : undefined);
  const optionInvalid = (j: number, part: "text" | "value") =>
    place?.field === "option" && place.option === j && place.part === part ? ("true" as const) : undefined;
  return {
    errorId,
    errorAt,
    invalid: (s) => (errorAt(s) ? "true" : undefined),
    describedBy: (s, hint) =>
      [hint, errorAt(s) ? errorId(s) : undefined].filter(Boolean).join(" ") || undefined,
    optionInvalid,
    optionDescribedBy: (j, part) => (optionInvalid(j, part) ? errorId(`option-${j}`) : undefined),
  };
}

/** Reads a number field: null while it is empty or not a number. */
export function numberOf(input: HTMLInputElement): number | null {
  return input.value.trim() === "" || Number.isNaN(input.valueAsNumber) ? null : input.valueAsNumber;
}
