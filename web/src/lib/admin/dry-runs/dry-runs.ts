import { countOf } from "../../format.ts";
import { KIND_LABELS } from "../../survey/types.ts";
import type { DryRun, DryRunArm, DryRunProblem, DryRunStatus } from "../../types.ts";
import { formatMs } from "../recommenders/model-runs.ts";
import { rateParts } from "../results/results.ts";

type ProblemKind = DryRunProblem["kind"];

/**
 * What each problem kind means, as a heading a researcher reads before the server's own message
 * (api.md "Simulated participants"). The order is the order the report lists them in.
 */
export const PROBLEM_HEADINGS: Readonly<Record<ProblemKind, string>> = {
  request_failed: "A request to the server failed",
  page_error: "A page broke",
  empty_feed: "The feed was empty",
  empty_related: "The watch page listed no related videos",
  layout_fallback: "The layout failed and the plain one was shown",
  survey_out_of_order: "The surveys came in the wrong order",
  survey_over_playback: "A survey opened over a playing video",
  completion_not_reached: "The study never reached its completion",
  redirect_placeholder: "The completion link kept a placeholder unfilled",
  events_rejected: "The server refused events the pages sent",
  events_not_stored: "Events the server accepted were never stored",
  missing_event_types: "Events the pages should send never arrived",
  accessibility: "A page has an accessibility problem",
};

/** A problem kind in words (a kind this console does not know yet by its code). */
export const problemHeading = (kind: string): string => PROBLEM_HEADINGS[kind as ProblemKind] ?? kind;

/** The lines of an arm's checklist, in the order a participant meets them. */
const CHECKS = {
  joining: "Joining and consent",
  feed: "Feed",
  watch: "Watch page",
  surveys: "Surveys",
  completion: "Completion",
  events: "Events",
  other: "Other pages",
} as const;
type CheckId = keyof typeof CHECKS;

/** Kinds that say which line they belong to, wherever they happened. */
const CHECK_OF_KIND: Partial<Record<ProblemKind, CheckId>> = {
  empty_feed: "feed",
  empty_related: "watch",
  survey_out_of_order: "surveys",
  survey_over_playback: "surveys",
  completion_not_reached: "completion",
  redirect_placeholder: "completion",
  events_rejected: "events",
  events_not_stored: "events",
  missing_event_types: "events",
};

/** The others belong to the page they happened on (the runner's page names). */
const CHECK_OF_PAGE: Readonly<Record<string, CheckId>> = {
  join: "joining",
  consent: "joining",
  feed: "feed",
  watch: "watch",
  survey: "surveys",
  completion: "completion",
  events: "events",
};

/** The checklist line a problem turns red. */
export function checkOf(problem: Pick<DryRunProblem, "kind" | "page">): CheckId {
  return CHECK_OF_KIND[problem.kind] ?? CHECK_OF_PAGE[problem.page] ?? "other";
}

/** One thing that went wrong, with every simulated participant it happened to. */
export interface ProblemItem {
  readonly page: string;
  readonly message: string;
  readonly who: readonly Pick<DryRunProblem, "participant" | "user_id">[];
}

/** Problems of one kind, under their heading; the same message on the same page is one item. */
interface ProblemGroup {
  readonly kind: string;
  readonly heading: string;
  readonly items: readonly ProblemItem[];
}

/** Problems with the same page and message as one item naming everyone they happened to, in order. */
function sameMessage(problems: readonly DryRunProblem[]): ProblemItem[] {
  const items = new Map<string, { page: string; message: string; who: DryRunProblem[] }>();
  for (const p of problems) {
    const key = JSON.stringify([p.page, p.message]);
    const item = items.get(key) ?? { page: p.page, message: p.message, who: [] };
    item.who.push(p);
    items.set(key, item);
  }
  return [...items.values()];
}

/**
 * One line of an arm's checklist: green without problems, red with them, and grey when the run never
 * got to check it (`untested`, why: no simulated participant reached the completion, say).
 */
export interface CheckLine {
  readonly id: CheckId;
  readonly label: string;
  readonly ok: boolean;
  /** Why the line was not checked; null when it was (or when it is red). */
  readonly untested: string | null;
  readonly groups: readonly ProblemGroup[];
}

/** An arm's report in the fields the checklist reads (`completion_not_tested` absent: checked). */
type ArmChecks = Pick<DryRunArm, "problems"> & Partial<Pick<DryRunArm, "completion_not_tested">>;

/** Why the arm's completion was not tested, or null when it was. */
const completionUntested = (arm: ArmChecks): string | null => arm.completion_not_tested ?? null;

/** Whether any arm of the run has a line the run did not get to check. */
const anyUntested = (arms: readonly ArmChecks[]): boolean => arms.some((a) => completionUntested(a) !== null);

/**
 * An arm's report as a checklist: every line of `CHECKS` (the "other pages" line only when a problem
 * happened elsewhere), each with its problems grouped by kind in `PROBLEM_HEADINGS` order, and a
 * message many participants met said once.
 */
export function armChecklist(arm: ArmChecks): CheckLine[] {
  const order = Object.keys(PROBLEM_HEADINGS);
  const rank = (kind: string) => {
    const i = order.indexOf(kind);
    return i === -1 ? order.length : i;
  };
  return (Object.keys(CHECKS) as CheckId[])
    .map((id) => {
      const mine = arm.problems.filter((p) => checkOf(p) === id);
      const kinds = [...new Set(mine.map((p) => p.kind))].sort((a, b) => rank(a) - rank(b));
      const groups = kinds.map((kind) => ({
        kind,
        heading: problemHeading(kind),
        items: sameMessage(mine.filter((p) => p.kind === kind)),
      }));
      const ok = mine.length === 0;
      const untested = ok && id === "completion" ? completionUntested(arm) : null;
      return { id, label: CHECKS[id], ok, untested, groups };
    })
    .filter((line) => line.id !== "other" || !line.ok);
}

/** The run's verdict at the top of its report: its tone and one sentence. */
export interface Verdict {
  /** `untested`: no arm has a problem, but a step (the completion) did not run: not all green. */
  readonly tone: "ok" | "untested" | "problems" | "failed" | "running";
  readonly text: string;
}

/** The verdict of an arm without problems: green, or green for what ran when a line went untested. */
export const greenBadge = (arm: ArmChecks): string =>
  completionUntested(arm) === null ? "Green" : "Green for what ran";

/**
 * "All 3 arms are green", "2 of 3 arms have problems", why a run stopped, or that it is still going.
 * Green says what ran: when no simulated participant reached the completion, the verdict says it was
 * not tested rather than calling the arms green.
 */
export function verdict(run: Pick<DryRun, "status" | "arms" | "error">): Verdict {
  if (run.status === "failed")
    return {
      tone: "failed",
      text: `The dry run stopped before its report: ${run.error ?? "no reason given"}`,
    };
  if (run.status !== "done") return { tone: "running", text: "The dry run is not finished yet." };
  const red = run.arms.filter((a) => a.problems.length > 0).length;
  if (run.arms.length === 0) return { tone: "problems", text: "The dry run found no arm to report on." };
  const untested = run.arms.filter((a) => completionUntested(a) !== null).length;
  if (red === 0 && untested > 0) {
    const green = run.arms.length === 1 ? "The arm is" : `All ${run.arms.length} arms are`;
    const where = untested === run.arms.length ? "" : ` in ${untested} of ${run.arms.length} arms`;
    return {
      tone: "untested",
      text: `${green} green for what ran; the completion was not tested${where}: no simulated participant reached it.`,
    };
  }
  if (red === 0)
    return {
      tone: "ok",
      text: run.arms.length === 1 ? "The arm is green." : `All ${run.arms.length} arms are green.`,
    };
  if (run.arms.length === 1) return { tone: "problems", text: "The arm has problems." };
  return {
    tone: "problems",
    text: `${red} of ${run.arms.length} arms ${red === 1 ? "has" : "have"} problems.`,
  };
}

/** A run the page keeps polling. */
export const isActive = (run: Pick<DryRun, "status">): boolean =>
  run.status === "queued" || run.status === "running";

export const STATUS_LABELS: Readonly<Record<DryRunStatus, string>> = {
  queued: "Queued",
  running: "Running",
  done: "Done",
  failed: "Failed",
};

/** The progress bar's label: "4 of 9 participants", or that the run waits its turn. */
export function progressLabel(run: Pick<DryRun, "status" | "progress">): string {
  if (run.status === "queued" || run.progress.total === 0) return "Waiting to start…";
  return `${run.progress.done} of ${countOf(run.progress.total, "participant")}`;
}

/** A past run in one phrase for the list: its outcome, or how far it got. */
export function runOutcome(run: Pick<DryRun, "status" | "arms" | "progress" | "error">): string {
  if (run.status === "failed") return "Stopped";
  if (isActive(run)) return progressLabel(run);
  const red = run.arms.filter((a) => a.problems.length > 0).length;
  if (red > 0) return countOf(red, "arm with problems", "arms with problems");
  return anyUntested(run.arms) ? "Green for what ran; completion not tested" : "All arms green";
}

/** "3 joined · 2 finished · 1 declined the consent". */
export function participantsLine(arm: Pick<DryRunArm, "participants" | "finished" | "declined">): string {
  const parts = [`${arm.participants} joined`, `${arm.finished} finished`];
  if (arm.declined > 0) parts.push(`${arm.declined} declined the consent`);
  return parts.join(" · ");
}

/** A click rate with its 95% interval, as the results page writes it: "12.5% (8.0%–17.0%)". */
export function rateText(rate: DryRunArm["ctr"]): string {
  const { value, interval } = rateParts(rate);
  return interval ? `${value} ${interval}` : value;
}

/** "median 850 ms, slowest 1.2 s"; a dash when no card was shown. */
export function firstCardText(ms: DryRunArm["first_card_ms"]): string {
  if (ms === null) return "—";
  return `median ${formatMs(ms.p50)}, slowest ${formatMs(ms.max)}`;
}

/** The surveys in the order they came: "Background (pre-study) → Exit (post-study)". */
export function surveysText(surveys: DryRunArm["surveys"]): string {
  if (surveys.length === 0) return "None shown";
  return surveys
    .map((s) => {
      const kind = KIND_LABELS[s.kind as keyof typeof KIND_LABELS];
      return kind ? `${s.name} (${kind.toLowerCase()})` : s.name;
    })
    .join(" → ");
}

/** Where a problem happened, in words: "On the feed", "On /consent". */
export function pageWords(page: string): string {
  const words: Readonly<Record<string, string>> = {
    feed: "On the feed",
    watch: "On the watch page",
    survey: "In a survey",
    consent: "On the consent page",
    completion: "At the completion",
    events: "In the events",
    join: "When joining",
  };
  return words[page] ?? `On ${page}`;
}

/**
 * The trajectory page of a problem's simulated participant, or null when there is none to open: the
 * participant never got an id, or was erased since (`present` holds the simulated participants the
 * experiment still has), so the report never links to a page that answers 404.
 */
export function trajectoryHref(
  experimentId: string,
  problem: Pick<DryRunProblem, "participant" | "user_id">,
  present: ReadonlySet<string>,
): string | null {
  if (problem.user_id === null || !present.has(problem.user_id)) return null;
  return `/admin/participants/${problem.user_id}?experiment=${experimentId}&login=${encodeURIComponent(problem.participant)}`;
}
