import { type Assignment, assignmentProblems, type LocalizedText } from "@feedlab/schemas";
import type { Knex } from "knex";
import { json } from "../db/present.ts";
import { armsOf } from "../groups/queries/groups.queries.ts";
import { isBuiltinKey } from "../recommenders/builtins.ts";
import { recommenderKeysAmong } from "../recommenders/queries/recommenders.queries.ts";
import { consentRequired } from "../study/completion.ts";
import { activePreSurveyQuestions, hasActivePostSurvey } from "../surveys/queries/answers.queries.ts";
import { isKnownUiKey } from "../ui/presets.ts";
import { templateIdsAmong } from "../ui/queries/templates.queries.ts";
import { poolSize } from "../videos/queries/videos.queries.ts";
import { type TranslationProblem, translationProblems } from "./translations.ts";

/** One reason an experiment cannot start, as the console's checklist shows it. */
export type ReadinessProblem =
  | {
      readonly problem:
        | "no_groups"
        | "empty_pool"
        | "unknown_recommender"
        | "unknown_ui"
        | "no_post_survey"
        | "invalid_assignment"
        | "no_mail_server"
        | "reminders_without_consent";
      readonly message: string;
      readonly group_id?: string;
      readonly page?: "feed" | "watch";
      readonly key?: string;
    }
  | TranslationProblem;

/**
 * What keeps an experiment from running (api.md: `experiment_not_ready`): no group, an empty pool, or
 * a group whose recommender or UI no longer exists; and a completion rule that waits for a post survey
 * the experiment does not have (nobody could finish); a text participants read (the consent, an active
 * survey's) that lacks one of the study's languages. Empty when it can start. A survey left inactive
 * (as every new one starts) is no reason to refuse: studies run without surveys, and the console's
 * checklist warns about it instead (web/src/lib/admin/experiment/readiness.ts).
 */
export async function readinessProblems(
  db: Knex | Knex.Transaction,
  experimentId: string,
  options: { mailConfigured?: boolean } = {},
): Promise<ReadinessProblem[]> {
  const [groups, pool, experiment, post, translations] = await Promise.all([
    armsOf<{
      id: string;
      name: string;
      weight: number;
      algorithm_feed: string;
      algorithm_watch: string;
      ui_feed: string;
      ui_watch: string;
    }>(db, experimentId, "id", "name", "weight", "algorithm_feed", "algorithm_watch", "ui_feed", "ui_watch"),
    poolSize(db, experimentId),
    db("experiments")
      .where({ id: experimentId })
      .first("completion", "assignment", "reminders", "consent_text") as Promise<
      { completion: unknown; assignment: unknown; reminders: unknown; consent_text: unknown } | undefined
    >,
    hasActivePostSurvey(db, experimentId),
    translationProblems(db, experimentId),
  ]);
  const problems: ReadinessProblem[] = [];
  if (groups.length === 0)
    problems.push({
      problem: "no_groups",
      message: "Add at least one arm: participants are assigned to arms.",
    });
  if (pool === 0)
    problems.push({
      problem: "empty_pool",
      message: "Add videos to the pool: participants would see an empty feed.",
    });
  const completion = json<{ after_post_survey?: boolean } | null>(experiment?.completion, null);
  if (completion?.after_post_survey && !post)
    problems.push({
      problem: "no_post_survey",
      message:
        "The completion waits for an answer to the post-study survey, but no post-study survey is active. Activate one under Surveys, or untick “Only after an answer to the post-study survey”.",
    });
  // Reminders by e-mail need a mail server, and the consent page where the address is given.
  if (json<{ email?: boolean } | null>(experiment?.reminders, null)?.email === true) {
    if (options.mailConfigured !== true)
      problems.push({
        problem: "no_mail_server",
        message:
          "Reminders are sent by e-mail, but this server has no mail server set (FEEDLAB_SMTP_URL). Ask whoever runs the server to set it, or untick “Remind participants by e-mail”.",
      });
    if (!consentRequired((experiment?.consent_text ?? null) as LocalizedText | null))
      problems.push({
        problem: "reminders_without_consent",
        message:
          "Reminders are sent by e-mail, and participants give their address on the consent page, but the study has no consent text. Write one under Consent and completion.",
      });
  }
  // Arms' weights may have changed since the method was set (api.md: readiness refuses the start).
  const assignment = json<Assignment | null>(experiment?.assignment, null);
  if (assignment && groups.length > 0)
    for (const p of assignmentProblems(
      assignment,
      groups.map((g) => Number(g.weight)),
    ))
      problems.push({ problem: "invalid_assignment", message: `Assignment: ${p.message}` });
  // A survey covariate is a single-choice question of the active pre survey (api.md "Assignment (wave 4)").
  const surveyKeys = (assignment?.method === "minimisation" ? (assignment.covariates ?? []) : [])
    .filter((c) => c.source === "survey")
    .map((c) => c.key);
  if (surveyKeys.length > 0) {
    const questions = json<{ id: string; type: string }[] | null>(
      await activePreSurveyQuestions(db, experimentId),
      null,
    );
    for (const key of surveyKeys)
      if (!questions?.some((q) => q.id === key && q.type === "single"))
        problems.push({
          problem: "invalid_assignment",
          message:
            questions === null
              ? `Assignment: minimisation balances on the answer to question “${key}” of the pre survey, but no pre survey is active. Activate one under Surveys.`
              : `Assignment: minimisation balances on the answer to question “${key}”, which is not a single-choice question of the active pre survey.`,
          key,
        });
  }
  const recommenderKeys = [...new Set(groups.flatMap((g) => [g.algorithm_feed, g.algorithm_watch]))];
  const registered = await recommenderKeysAmong(db, recommenderKeys);
  const templateIds = [...new Set(groups.flatMap((g) => [g.ui_feed, g.ui_watch]))].filter(
    (k) => !isKnownUiKey(k),
  );
  const templates = await templateIdsAmong(db, templateIds);
  for (const g of groups)
    for (const page of ["feed", "watch"] as const) {
      const key = page === "feed" ? g.algorithm_feed : g.algorithm_watch;
      if (!isBuiltinKey(key) && !registered.has(key))
        problems.push({
          problem: "unknown_recommender",
          message: `Arm “${g.name}”: the ${page} page's recommender “${key}” no longer exists. Choose another.`,
          group_id: g.id,
          page,
          key,
        });
      const ui = page === "feed" ? g.ui_feed : g.ui_watch;
      if (!isKnownUiKey(ui) && !templates.has(ui))
        problems.push({
          problem: "unknown_ui",
          message: `Arm “${g.name}”: the ${page} page's layout no longer exists. Choose another.`,
          group_id: g.id,
          page,
          key: ui,
        });
    }
  problems.push(...translations);
  return problems;
}
