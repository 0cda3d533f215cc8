import { canonicalText, type LocalizedText } from "@feedlab/schemas";
import { unprocessable } from "../http/errors.ts";

/**
 * A researcher's text with its language tags in canonical form, so they match the study's languages;
 * 422 `invalid_language` naming the field and the tag that is not a BCP 47 language tag (or names a
 * language a second time).
 */
export function canonicalTextOr422<T extends LocalizedText | null>(text: T, field: string): T {
  if (text === null) return text;
  const checked = canonicalText(text);
  if ("invalidTag" in checked)
    throw unprocessable(
      "invalid_language",
      `${field}: "${checked.invalidTag}" is not a language tag such as en, de or zh-Hans, or it names a language twice.`,
      { field, language: checked.invalidTag },
    );
  return checked.text as T;
}

/** A survey's name and questions with every text's language tags canonical (else 422). */
export function canonicalSurveyTexts<
  Q extends { text: LocalizedText; answers?: readonly { text: LocalizedText }[] | undefined },
>(name: LocalizedText, questions: readonly Q[]): { name: LocalizedText; questions: Q[] } {
  return {
    name: canonicalTextOr422(name, "name"),
    questions: questions.map((q, i) => ({
      ...q,
      text: canonicalTextOr422(q.text, `questions[${i}].text`),
      ...(q.answers === undefined
        ? {}
        : {
            answers: q.answers.map((o, j) => ({
              ...o,
              text: canonicalTextOr422(o.text, `questions[${i}].answers[${j}].text`),
            })),
          }),
    })),
  };
}
