import { createHash } from "node:crypto";
import { type Completion, type ExperimentStatus, type LocalizedText, versionsOf } from "@feedlab/schemas";
import { RECRUITING_PARAMETERS, REDIRECT_DELAY_DEFAULT_S } from "@feedlab/schemas/http/enums.ts";

/** The placeholders a completion `redirect_url` may hold (api.md, Study flow). */
const REDIRECT_PLACEHOLDERS: readonly string[] = ["login_id", "code", ...RECRUITING_PARAMETERS];

const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * The rule as it acts: an absent `redirect_delay_s` (never set, or stored before the field existed)
 * is the default delay, and answers say so (api.md "Console and exports (wave 3)").
 */
export const completionInForce = (c: Completion): Completion & { redirect_delay_s: number } => ({
  ...c,
  redirect_delay_s: c.redirect_delay_s ?? REDIRECT_DELAY_DEFAULT_S,
});

/** What counts toward completion so far. */
export interface Progress {
  readonly sessions: number;
  readonly feed_minutes: number;
}

/** A problem with a completion rule, as the experiment PATCH reports it (422 invalid_completion). */
export interface CompletionProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * Checks what the schema cannot: the redirect is an absolute http(s) URL and its placeholders are
 * ones Feedlab fills. Returns the problems, worded for the console.
 */
export function completionProblems(c: Completion): CompletionProblem[] {
  const problems: CompletionProblem[] = [];
  if (c.redirect_url !== undefined) {
    const unknown = [...c.redirect_url.matchAll(PLACEHOLDER)]
      .map((m) => m[1] ?? "")
      .filter((name) => !REDIRECT_PLACEHOLDERS.includes(name));
    if (unknown.length > 0)
      problems.push({
        field: "completion.redirect_url",
        message: `The return link has placeholders Feedlab cannot fill: ${unknown.map((n) => `{${n}}`).join(", ")}. Use ${REDIRECT_PLACEHOLDERS.map((n) => `{${n}}`).join(", ")}.`,
      });
    let url: URL | null = null;
    try {
      url = new URL(c.redirect_url.replace(PLACEHOLDER, "x"));
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
      problems.push({
        field: "completion.redirect_url",
        message: "The return link must be a full web address starting with https:// (or http://).",
      });
  }
  return problems;
}

/**
 * Whether the participant has reached the end of the study, before the post survey: every condition
 * set (sessions, minutes) is met; with neither set, when the experiment is completed.
 */
export function conditionsReached(c: Completion, progress: Progress, status: ExperimentStatus): boolean {
  if (status === "completed") return true;
  if (c.after_sessions === undefined && c.after_feed_minutes === undefined) return false;
  if (c.after_sessions !== undefined && progress.sessions < c.after_sessions) return false;
  if (c.after_feed_minutes !== undefined && progress.feed_minutes < c.after_feed_minutes) return false;
  return true;
}

/** The experiment's active post survey, as it stands for one participant. */
export interface PostSurveyState {
  /** The experiment has an active post survey. */
  readonly active: boolean;
  readonly answered: boolean;
  readonly dismissed: boolean;
}

/**
 * Whether a participant whose conditions are reached is finished (api.md, Validity rules): the
 * active post survey comes first. With `after_post_survey` only an answer gets past it (it is served
 * forced); otherwise an answer or a dismissal does. Without an active post survey, a rule that waits
 * for one never finishes (a study cannot start so: readiness) and any other rule finishes at once.
 */
export function finishesStudy(c: Completion, post: PostSurveyState): boolean {
  if (!post.active) return c.after_post_survey !== true;
  return post.answered || (c.after_post_survey !== true && post.dismissed);
}

/** The post survey is served forced (it cannot be closed) when the completion rule waits for its answer. */
export const postSurveyForced = (c: Completion | null): boolean => c?.after_post_survey === true;

/** Fills a redirect URL's placeholders, each value URL-encoded; a value not captured becomes empty. */
export function fillRedirect(template: string, values: Readonly<Record<string, string | undefined>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    REDIRECT_PLACEHOLDERS.includes(name) ? encodeURIComponent(values[name] ?? "") : whole,
  );
}

/** A consent text's version: the first 16 hex digits of its SHA-256, so an edit makes a new version. */
export const consentVersion = (text: string): string =>
  createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);

/** A consent text that asks for something (null or blank, in every language, means no consent step). */
export const consentRequired = <T extends LocalizedText>(text: T | null | undefined): text is T =>
  text !== null && text !== undefined && versionsOf(text).some((v) => v.trim() !== "");
