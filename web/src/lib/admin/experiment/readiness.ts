import type { Assignment } from "@feedlab/schemas/http/assignment.ts";
import { RECRUITING_PARAMETERS } from "@feedlab/schemas/http/enums.ts";
import { defaultText } from "@feedlab/schemas/http/localized-text.ts";
import { type AdminSurvey, KIND_LABELS, SURVEY_KINDS } from "../../survey/types.ts";
import type { ReadinessProblem } from "../../types.ts";
import {
  type SurveyOfStudy,
  surveyCovariateFault,
  surveyCovariateKeys,
  surveyCovariateMessage,
} from "./survey-covariates.ts";

/**
 * What the "Before you start" checklist warns about without refusing the start: surveys that exist
 * but are all inactive for their kind (a new survey starts inactive), so participants would never see
 * them. Starting with them is allowed (the server's readiness check ignores inactive surveys); the
 * researcher may mean it. A kind the server already names as a problem (`no_post_survey`) is not
 * repeated here.
 */
export function surveyWarnings(
  surveys: readonly Pick<AdminSurvey, "kind" | "name" | "is_active">[],
  problems: readonly Pick<ReadinessProblem, "problem">[] = [],
  defaultLanguage = "en",
): string[] {
  const warnings: string[] = [];
  for (const kind of SURVEY_KINDS) {
    if (kind === "post" && problems.some((p) => p.problem === "no_post_survey")) continue;
    const ofKind = surveys.filter((s) => s.kind === kind);
    if (ofKind.length === 0 || ofKind.some((s) => s.is_active)) continue;
    const label = KIND_LABELS[kind].toLowerCase();
    const names = ofKind.map((s) => `“${defaultText(s.name, defaultLanguage)}”`).join(", ");
    warnings.push(
      ofKind.length === 1
        ? `The ${label} survey ${names} is inactive, so participants will not see it. Activate it under Surveys if they should.`
        : `The ${ofKind.length} ${label} surveys (${names}) are inactive, so participants will see none of them. Activate one under Surveys if they should.`,
    );
  }
  return warnings;
}

/**
 * What the checklist warns about minimisation (api.md "Assignment (wave 4)"). A recruiting covariate is
 * a parameter of the study link, so only participants whose link carries it have it; the researcher must
 * add it to the links they hand out, or every participant shares the missing level and nothing is
 * balanced. Recruiting platforms' own parameters (PROLIFIC_PID...) say nothing about a participant. A
 * survey covariate must be a single-choice question of the active pre survey, or nobody could be
 * assigned: the server refuses the start then (`invalid_assignment` with the question's id as `key`),
 * so a question it already names is left to its problem (`problemMessage` words it).
 */
export function assignmentWarnings(
  assignment: Pick<Assignment, "method" | "covariates">,
  surveys: readonly SurveyOfStudy[] = [],
  problems: readonly Pick<ReadinessProblem, "problem" | "key">[] = [],
  defaultLanguage = "en",
): string[] {
  if (assignment.method !== "minimisation") return [];
  const refused = new Set(problems.filter((p) => p.problem === "invalid_assignment").map((p) => p.key));
  return (assignment.covariates ?? []).flatMap((c) => {
    if (c.source === "survey") {
      const fault = refused.has(c.key) ? null : surveyCovariateFault(surveys, c.key);
      return fault ? [surveyCovariateMessage(fault, c.key, defaultLanguage)] : [];
    }
    return [
      (RECRUITING_PARAMETERS as readonly string[]).includes(c.key)
        ? `Assignment balances on “${c.key}”, a recruiting platform’s id: every participant has a different one, so it balances nothing. Choose a parameter that describes participants.`
        : `Assignment balances on “${c.key}”: participants carry it only if their study link has it (…&${c.key}=…). Add it to the links you hand out, or everyone counts as “none”.`,
    ];
  });
}

/**
 * A readiness problem in the checklist's words: the server's message, except for a survey covariate it
 * refuses (`invalid_assignment` naming the question), which says what is wrong with the question by its
 * text when the surveys show it.
 */
export function problemMessage(
  p: Pick<ReadinessProblem, "problem" | "key" | "message">,
  assignment: Pick<Assignment, "covariates">,
  surveys: readonly SurveyOfStudy[],
  defaultLanguage = "en",
): string {
  if (p.problem !== "invalid_assignment" || p.key === undefined) return p.message;
  const key = p.key;
  if (!surveyCovariateKeys(assignment).includes(key)) return p.message;
  const fault = surveyCovariateFault(surveys, key);
  return fault ? surveyCovariateMessage(fault, key, defaultLanguage) : p.message;
}
