import { DEFAULT_LANGUAGE, defaultText, type LocalizedText, missingLanguages } from "@feedlab/schemas";
import type { Knex } from "knex";
import { json } from "../db/present.ts";
import { surveysOf } from "../surveys/queries/answers.queries.ts";

/** A text of the study that lacks some of its languages: which text, where, and which languages. */
interface MissingText {
  /** Where the text is: `consent_text`, `questions[0].text`, `questions[0].answers[1].text`. */
  readonly field: string;
  /** How the console names it: "question 1", "question 1, option 2". */
  readonly label: string;
  readonly languages: readonly string[];
}

/** A missing-translation problem of readiness: the consent text, or one active survey. */
export interface TranslationProblem {
  readonly problem: "missing_translation";
  readonly message: string;
  readonly survey_id?: string;
  readonly fields: readonly string[];
  readonly languages: readonly string[];
}

interface StoredQuestion {
  readonly text: LocalizedText;
  readonly answers?: readonly { readonly text: LocalizedText }[];
}

/** "German (de)": a language as the console's readers (in English) know it, with its tag. */
const languageName = (tag: string): string => {
  try {
    return `${new Intl.DisplayNames(["en"], { type: "language" }).of(tag) ?? tag} (${tag})`;
  } catch {
    return tag;
  }
};

const listed = (items: readonly string[], most = 3): string =>
  items.length <= most
    ? items.join(", ")
    : `${items.slice(0, most).join(", ")} and ${items.length - most} more`;

/**
 * The texts of a survey participants read (its questions and their options; its name is the team's)
 * that lack some of `languages`.
 */
function surveyGaps(
  questions: readonly StoredQuestion[],
  languages: readonly string[],
  defaultLanguage: string,
): MissingText[] {
  const gaps: MissingText[] = [];
  const check = (text: LocalizedText, field: string, label: string) => {
    const missing = missingLanguages(text, languages, defaultLanguage);
    if (missing.length > 0) gaps.push({ field, label, languages: missing });
  };
  for (const [i, q] of questions.entries()) {
    check(q.text, `questions[${i}].text`, `question ${i + 1}`);
    for (const [j, o] of (q.answers ?? []).entries())
      check(o.text, `questions[${i}].answers[${j}].text`, `question ${i + 1}, option ${j + 1}`);
  }
  return gaps;
}

const problemOf = (what: string, gaps: readonly MissingText[], surveyId?: string): TranslationProblem => {
  const languages = [...new Set(gaps.flatMap((g) => g.languages))];
  const where =
    gaps.length === 1 && gaps[0]?.field === "consent_text" ? "" : ` (${listed(gaps.map((g) => g.label))})`;
  return {
    problem: "missing_translation",
    message: `${what} has no text in ${listed(languages.map(languageName))}${where}. Write it under each language, or remove the language under Languages.`,
    ...(surveyId === undefined ? {} : { survey_id: surveyId }),
    fields: gaps.map((g) => g.field),
    languages,
  };
};

/**
 * The texts participants would read in a language the study lists but the text lacks (api.md
 * "Participant languages"): the consent text and every active survey's questions and options.
 * A plain string is the default language's text. One problem per text owner, naming what lacks which.
 */
export async function translationProblems(
  db: Knex | Knex.Transaction,
  experimentId: string,
): Promise<TranslationProblem[]> {
  const [experiment, surveys] = await Promise.all([
    db("experiments")
      .where({ id: experimentId })
      .first("consent_text", "languages", "default_language") as Promise<
      { consent_text: LocalizedText | null; languages: unknown; default_language: string } | undefined
    >,
    surveysOf<{ id: string; kind: string; name: LocalizedText; questions: unknown }>(
      db,
      experimentId,
      { active: true },
      "id",
      "kind",
      "name",
      "questions",
    ),
  ]);
  if (experiment === undefined) return [];
  const languages = json<string[]>(experiment.languages, [DEFAULT_LANGUAGE]);
  const defaultLanguage = experiment.default_language;
  const problems: TranslationProblem[] = [];
  const consent = experiment.consent_text;
  if (consent !== null) {
    const missing = missingLanguages(consent, languages, defaultLanguage);
    if (missing.length > 0)
      problems.push(
        problemOf("The consent text", [{ field: "consent_text", label: "", languages: missing }]),
      );
  }
  for (const s of surveys) {
    const gaps = surveyGaps(json<StoredQuestion[]>(s.questions, []), languages, defaultLanguage);
    const name = defaultText(s.name, defaultLanguage);
    if (gaps.length > 0)
      problems.push(problemOf(`The ${s.kind.replace("_", "-")} survey “${name}”`, gaps, s.id));
  }
  return problems;
}
