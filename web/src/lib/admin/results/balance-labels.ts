import type { Balance } from "@feedlab/schemas";
import { defaultText } from "@feedlab/schemas/http/localized-text.ts";
import { questionById, questionLabel, type SurveyOfStudy } from "../experiment/survey-covariates.ts";

/** The level the server gives participants without a value (api.md: a missing value is a level of its own). */
const NO_VALUE = "(none)";

/** How the balance card names a covariate and its levels. */
export interface CovariateLabels {
  /** The question's text for a survey covariate, the parameter's name for a recruiting one. */
  readonly title: string;
  /** What the covariate is, after its title. */
  readonly what: string;
  /** A level as the team reads it: a survey answer's option text, else the level itself. */
  readonly level: (level: string) => string;
}

/**
 * Names a covariate of `GET .../balance` (api.md "Assignment (wave 4)"): a survey covariate by its
 * question's text and its levels by their options' texts (a level is matched by option id, or by value
 * when one option alone has it), in the study's default language; by the question id and the raw levels
 * when the surveys are not known or no longer hold the question.
 */
export function covariateLabels(
  c: Pick<Balance["covariates"][number], "source" | "key">,
  surveys: readonly SurveyOfStudy[] | undefined,
  defaultLanguage: string,
): CovariateLabels {
  if (c.source !== "survey") return { title: c.key, what: "link parameter", level: (l) => l };
  const question = surveys ? questionById(surveys, c.key) : null;
  const options = question?.answers ?? [];
  const level = (l: string) => {
    if (l === NO_VALUE) return "no answer";
    const byId = options.find((o) => o.id === l);
    const byValue = options.filter((o) => String(o.value) === l);
    const option = byId ?? (byValue.length === 1 ? byValue[0] : undefined);
    return option ? defaultText(option.text, defaultLanguage) : l;
  };
  return { title: questionLabel(question, c.key, defaultLanguage), what: "pre-survey question", level };
}
