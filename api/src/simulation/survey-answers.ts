import type { AnswerInput, SurveyQuestion } from "@feedlab/schemas";
import { itemAt, type Random } from "../system/random.ts";
import type { BehaviourOptions } from "./options.ts";

/**
 * A question as a participant page receives it. `attention_answer` (api.md, Data quality and validity)
 * is the option value an attention check expects, or a list of values for a multi question: the pages
 * never carry it, and the model is told it by its spec (`attentionAnswers`).
 */
export type AnswerableQuestion = SurveyQuestion & {
  readonly attention_answer?: number | readonly number[] | null;
};

/** A filled-in survey: the `answers` of `POST /api/v1/surveys/{id}/responses`, and how long the form took. */
export interface SurveyAnswers {
  readonly answers: AnswerInput[];
  /** The response's `duration_ms`: the time the form was open. */
  readonly durationMs: number;
}

/** Sentences for text questions: plain, non-blank, well inside the text limit. */
const SENTENCES = [
  "The videos were mostly interesting.",
  "Some recommendations felt repetitive.",
  "I watched the ones that matched what I like.",
  "Hard to say, it varied.",
  "I would have liked more variety.",
  "The feed got better as I went on.",
  "Nothing in particular.",
] as const;

/** Values an attention check expects, as a list (empty when the question is no check). */
function expected(q: AnswerableQuestion): readonly number[] {
  const a = q.attention_answer;
  if (a === undefined || a === null) return [];
  return typeof a === "number" ? [a] : a;
}

/** The options a multi question must and may take: [min, max] clamped to what the question offers. */
function selectRange(q: SurveyQuestion, options: number): [number, number] {
  const min = Math.min(options, Math.max(0, q.minSelect ?? 0));
  const max = q.maxSelect !== null && q.maxSelect !== undefined && q.maxSelect > 0 ? q.maxSelect : options;
  return [min, Math.max(min, Math.min(max, options))];
}

/**
 * The selections for an attention check, when they can be valid: the options whose values the check
 * expects (one for single, the multi's bounds respected). Null when the check cannot be met, so the
 * question is answered as any other (an analyst's mistake the quality page then shows as failures).
 */
function attentionSelections(q: AnswerableQuestion, values: readonly number[]): string[] | null {
  const matching = (q.answers ?? []).filter((o) => values.includes(o.value)).map((o) => o.id);
  if (q.type === "single") return matching.length > 0 ? [itemAt(matching, 0)] : null;
  const [min, max] = selectRange(q, (q.answers ?? []).length);
  return matching.length >= min && matching.length <= max && matching.length > 0 ? matching : null;
}

/** One failed check: a valid answer that avoids every expected value where the question allows it. */
function failedSelections(random: Random, q: AnswerableQuestion, values: readonly number[]): string[] {
  const others = (q.answers ?? []).filter((o) => !values.includes(o.value)).map((o) => o.id);
  if (q.type === "single") return others.length > 0 ? [random.pick(others)] : anySelections(random, q);
  const [min, max] = selectRange(q, (q.answers ?? []).length);
  if (others.length < Math.max(1, min)) return anySelections(random, q);
  return random.sample(others, random.int(Math.max(1, min), Math.min(max, others.length)));
}

/** A valid choice for a single or multi question, options drawn uniformly. */
function anySelections(random: Random, q: SurveyQuestion): string[] {
  const ids = (q.answers ?? []).map((o) => o.id);
  if (q.type === "single") return ids.length > 0 ? [random.pick(ids)] : [];
  const [min, max] = selectRange(q, ids.length);
  return random.sample(ids, random.int(min, max));
}

/**
 * Answers every question validly (the rules of `checkAnswers`): single takes one option, multi between
 * minSelect and maxSelect (0 = no upper bound), text a sentence or two. An optional question is skipped
 * with `skipOptionalShare`, left out or sent empty by turns (both are allowed, so both get exercised);
 * an attention check is answered, and passed with `attentionPassShare`.
 */
export function answerSurvey(
  random: Random,
  questions: readonly AnswerableQuestion[],
  options: BehaviourOptions,
): SurveyAnswers {
  const answers: AnswerInput[] = [];
  for (const q of questions) {
    const check = expected(q);
    const optional = q.required === false;
    if (optional && check.length === 0 && random.bernoulli(options.skipOptionalShare)) {
      if (random.bernoulli(0.5)) answers.push({ questionId: q.id, selections: [], textInput: null });
      continue;
    }
    if (q.type === "text") {
      const n = random.int(1, 2);
      const text = random.sample(SENTENCES, n).join(" ");
      answers.push({ questionId: q.id, selections: [], textInput: text });
      continue;
    }
    const passing = check.length > 0 ? attentionSelections(q, check) : null;
    let selections: string[];
    if (passing === null) selections = anySelections(random, q);
    else if (random.bernoulli(options.attentionPassShare)) selections = passing;
    else selections = failedSelections(random, q, check);
    answers.push({ questionId: q.id, selections });
  }
  const durationMs = Math.round(
    questions.reduce((sum) => sum + random.logNormal(options.answerMs, 0.5), 0) + random.uniform(500, 2000),
  );
  return { answers, durationMs };
}
