import type { ReadinessProblem } from "../../types.ts";

/**
 * The experiment page's sections in page order, each by its heading's id and the heading's words: the
 * page's in-page navigation links to each, and the "Before you start" checklist to the one that fixes
 * a problem. A section component keeps its heading's id as written here.
 */
export const EXPERIMENT_SECTIONS = [
  { id: "status-heading", label: "Status" },
  { id: "settings-heading", label: "Settings" },
  { id: "members-heading", label: "Members" },
  { id: "groups-heading", label: "Arms" },
  { id: "assignment-heading", label: "Assignment" },
  { id: "pool-heading", label: "Video pool" },
  { id: "participants-heading", label: "Participants" },
  { id: "surveys-heading", label: "Surveys" },
  { id: "study-flow-heading", label: "Consent and completion" },
  { id: "schedule-heading", label: "Schedule and reminders" },
  { id: "prolific-heading", label: "Prolific" },
  { id: "languages-heading", label: "Languages" },
  { id: "validity-heading", label: "Exclusion rules and response time" },
  { id: "models-heading", label: "Learned model" },
  { id: "study-file-heading", label: "Study file" },
] as const;

type ExperimentSection = (typeof EXPERIMENT_SECTIONS)[number];

const section = (id: ExperimentSection["id"]): ExperimentSection =>
  EXPERIMENT_SECTIONS.find((s) => s.id === id) ?? EXPERIMENT_SECTIONS[0];

/** Where a link leads, and what it says. */
export interface FixLink {
  readonly href: string;
  readonly label: string;
}

/**
 * Where the researcher fixes a readiness problem (api.md `experiment_not_ready`): an arm's recommender
 * or layout under Arms, the pool under Video pool, a missing post-study survey under Surveys, a missing
 * translation in the survey's editor or the consent form. Null for a problem this console does not know.
 */
export function fixLinkOf(
  experimentId: string,
  p: Pick<ReadinessProblem, "problem" | "survey_id">,
): FixLink | null {
  const page = `/admin/experiments/${experimentId}`;
  const to = (id: ExperimentSection["id"]) => ({
    href: `${page}#${id}`,
    label: `Go to ${section(id).label}`,
  });
  switch (p.problem) {
    case "no_groups":
    case "unknown_recommender":
    case "unknown_ui":
      return to("groups-heading");
    case "empty_pool":
      return to("pool-heading");
    case "invalid_assignment":
      return to("assignment-heading");
    case "no_post_survey":
      return to("surveys-heading");
    case "no_mail_server":
      return to("schedule-heading");
    case "reminders_without_consent":
      return { href: `${page}#consent-text`, label: "Open the consent form" };
    case "missing_translation":
      return p.survey_id
        ? { href: `${page}/surveys/${p.survey_id}`, label: "Open the survey" }
        : { href: `${page}#consent-text`, label: "Open the consent form" };
    default:
      return null;
  }
}

/** The link beside a checklist warning about surveys left inactive. */
export const surveysLink = (experimentId: string): FixLink => ({
  href: `/admin/experiments/${experimentId}#surveys-heading`,
  label: "Go to Surveys",
});

/** The link beside a checklist warning about what assignment balances on. */
export const assignmentLink = (experimentId: string): FixLink => ({
  href: `/admin/experiments/${experimentId}#assignment-heading`,
  label: "Go to Assignment",
});
