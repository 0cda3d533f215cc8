import {
  type BonusPlan,
  type ProlificSubmission,
  REJECTION_CATEGORIES,
  REJECTION_MESSAGE_MIN,
  type ReviewBody,
} from "@feedlab/schemas/http/prolific.ts";
import { QUALITY_FLAG_LABELS, type QualityFlag, type QualityMeasure } from "@feedlab/schemas/http/quality.ts";
import { ApiError } from "../../participant-api.ts";

/*
 * The words and checks of the console's Prolific pages (docs/prolific.md; api.md "Prolific (wave 4)")
 * that need no component: labels, the bonus list's parsing, the rejection message's count, and what a
 * failure means for the researcher.
 */

type RejectionCategory = (typeof REJECTION_CATEGORIES)[number];

/** Prolific's rejection categories in the words of its own review page. */
const REJECTION_CATEGORY_LABELS: Record<RejectionCategory, string> = {
  TOO_QUICKLY: "Completed too quickly",
  TOO_SLOWLY: "Completed too slowly",
  FAILED_INSTRUCTIONS: "Did not follow the instructions",
  INCOMP_LONGITUDINAL: "Did not complete every part of a longitudinal study",
  FAILED_CHECK: "Failed an attention or comprehension check",
  LOW_EFFORT: "Low effort",
  MALINGERING: "Malingering (answers not given in good faith)",
  NO_CODE: "No completion code",
  BAD_CODE: "Wrong completion code",
  NO_DATA: "No data",
  UNSUPP_DEVICE: "Used a device the study does not support",
  OTHER: "Other",
};

/** The categories a rejection may carry, in Prolific's order, with their labels. */
export const REJECTION_CHOICES = REJECTION_CATEGORIES.map((value) => ({
  value,
  label: REJECTION_CATEGORY_LABELS[value],
}));

/** Prolific's least length of a rejection message (its rule; the server refuses shorter ones). */
export const MESSAGE_MIN = REJECTION_MESSAGE_MIN;

/**
 * A message's length as Prolific counts it: characters (code points, its API being Python), without
 * the spaces around it. An emoji is one character here and two in JavaScript's `length`.
 */
export const messageLength = (message: string): number => [...message.trim()].length;

/** The live count under the rejection message. */
export function messageCount(message: string): string {
  const n = messageLength(message);
  const noun = n === 1 ? "character" : "characters";
  return n >= MESSAGE_MIN
    ? `${n} ${noun}: long enough for Prolific.`
    : `${n} ${noun}: ${MESSAGE_MIN - n} more needed (Prolific asks for at least ${MESSAGE_MIN}).`;
}

/** The yes/no quality measures, which a bonus rule cannot pay for. */
type YesNoMeasure = "straight_lined" | "duplicate_recruiting_id";

/** Every numeric quality measure in the researcher's words (a new measure must be worded here). */
const NUMERIC_MEASURES: Record<Exclude<QualityMeasure, YesNoMeasure>, string> = {
  active_seconds: "Active seconds (page visible and focused)",
  visible_watch_seconds: "Seconds of video watched while visible",
  watch_seconds: "Seconds of video played",
  pointer_events: "Pointer movements",
  attention_passed: "Attention checks passed",
  attention_failed: "Attention checks failed",
  hidden_share: "Share of the visit the tab was hidden (0 to 1)",
  seconds_per_question: "Survey seconds per question",
};

/** The quality measures a bonus rule can pay for, with their labels, in the menu's order. */
export const BONUS_MEASURES = Object.entries(NUMERIC_MEASURES).map(([value, label]) => ({
  value: value as QualityMeasure,
  label,
}));

/** Words of the measures an exclusion rule can name (the server writes rules as `measure op value`). */
const RULE_MEASURES: Record<QualityMeasure, string> = {
  ...NUMERIC_MEASURES,
  straight_lined: "Answered every item of a scale alike",
  duplicate_recruiting_id: "Recruiting id seen under another login",
};
const OP_WORDS: Record<string, string> = {
  "<": "less than",
  "<=": "at most",
  ">": "more than",
  ">=": "at least",
  "==": "",
};

/** A rule as the server words it (`pointer_events < 1`) in the researcher's: "Pointer movements: less than 1". */
export function ruleWords(rule: string): string {
  const m = /^([a-z_]+) (<=|>=|==|<|>) (.+)$/.exec(rule.trim());
  const measure = m ? RULE_MEASURES[m[1] as QualityMeasure] : undefined;
  if (!m || !measure) return rule;
  const value = m[3] === "true" ? "yes" : m[3] === "false" ? "no" : m[3];
  const op = OP_WORDS[m[2] ?? ""];
  return `${measure}: ${op ? `${op} ` : ""}${value}`;
}

/** A quality flag's readable name; a flag this console does not know stays as the server wrote it. */
export const flagLabel = (flag: string): string => QUALITY_FLAG_LABELS[flag as QualityFlag] ?? flag;

/** Prolific's statuses a decision applies to: approve and reject from AWAITING REVIEW, a return also ACTIVE. */
export const awaitingReview = (s: Pick<ProlificSubmission, "status">) => s.status === "AWAITING REVIEW";
export const decidable = (s: Pick<ProlificSubmission, "status">) =>
  s.status === "AWAITING REVIEW" || s.status === "ACTIVE";

/** The badge tone of a Prolific status. */
export function statusTone(status: string): "good" | "bad" | "info" | "badge-warning" | "" {
  if (status === "APPROVED") return "good";
  if (status === "REJECTED" || status === "TIMED-OUT") return "bad";
  if (status === "AWAITING REVIEW") return "badge-warning";
  if (status === "ACTIVE") return "info";
  return "";
}

/** Where approval on finish stands for a submission, in words; null without approval on finish. */
export function approvalWords(a: ProlificSubmission["auto_approval"]): string | null {
  if (!a) return null;
  const tries = a.attempts === 1 ? "1 try" : `${a.attempts} tries`;
  if (a.state === "done") return "Approved on finish";
  if (a.state === "waiting")
    return `Waiting for Prolific to hold it as awaiting review (${tries}${a.last_error ? `; ${a.last_error}` : ""})`;
  return `Left for your review${a.last_error ? `: ${a.last_error}` : ""}`;
}

/**
 * Return reasons from the rules that hold for a participant, in words (Prolific shows them to the
 * participant); null when no rule holds, so the server's own default applies.
 */
export function returnReasonsOf(s: Pick<ProlificSubmission, "rules">): string[] | null {
  if (s.rules.length === 0) return null;
  return s.rules.slice(0, 10).map((r) => ruleWords(r).slice(0, 500));
}

/** An amount in the study's currency: "£1.50" (Feedlab does not know the study's currency; £ is shown). */
export const money = (amount: number): string => `£${amount.toFixed(2)}`;

/** A bonus list as the API takes it, or the lines that are wrong, numbered as the researcher sees them. */
export function parseBonusLines(
  text: string,
): { bonuses: { participant_id: string; amount: number }[] } | { problems: string[] } {
  const bonuses: { participant_id: string; amount: number }[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const n = i + 1;
    const parts = line.split(/\s*[,;\t]\s*/);
    const [id = "", amountText = ""] = parts;
    if (parts.length !== 2) {
      problems.push(`Line ${n}: write a participant id, a comma and an amount (like 5f1c…,1.50).`);
      continue;
    }
    if (!/^[A-Za-z0-9]{1,64}$/.test(id)) {
      problems.push(`Line ${n}: “${id}” is not a Prolific participant id (letters and digits only).`);
      continue;
    }
    const amount = Number(amountText.replace(/^[£$€]/, ""));
    if (!/^[£$€]?\d+(\.\d{1,2})?$/.test(amountText) || !(amount >= 0.01 && amount <= 1000)) {
      problems.push(
        `Line ${n}: the amount “${amountText}” must be from 0.01 to 1000, with at most two decimals.`,
      );
      continue;
    }
    if (seen.has(id)) {
      problems.push(`Line ${n}: ${id} is named twice; give each participant one line.`);
      continue;
    }
    seen.add(id);
    bonuses.push({ participant_id: id, amount });
  }
  if (problems.length === 0 && bonuses.length === 0)
    problems.push("Paste one line per participant: their Prolific id, a comma and the amount.");
  return problems.length > 0 ? { problems } : { bonuses };
}

/** A bonus plan's status, and what it means for the researcher. */
export const PLAN_STATUS: Record<BonusPlan["status"], { label: string; explain: string }> = {
  created: { label: "Set up, not paid", explain: "Set up on Prolific; nothing is paid until you pay it." },
  paying: {
    label: "Paying",
    explain:
      "The pay request was sent. If this lasts more than a minute (the server stopped while sending, say), treat it as unknown: check the study's bonuses on Prolific. Feedlab will not send it again.",
  },
  paid: { label: "Paid", explain: "Prolific accepted the payment. Feedlab never pays a plan twice." },
  unknown: {
    label: "Unknown",
    explain:
      "The pay request was sent and its answer lost: check the study's bonuses on Prolific. Feedlab will not send it again; if nobody was paid, set up a new plan.",
  },
};

/** A failure of a Prolific action: what happened, and what the researcher can do about it. */
export interface Problem {
  readonly title: string;
  readonly todo: string;
}

/** What a failed call means, in the console's words, for each of the Prolific routes' error codes. */
export function problemOf(error: unknown, whatFailed: string): Problem {
  if (!(error instanceof ApiError)) return { title: `${whatFailed}.`, todo: "Try again in a moment." };
  switch (error.code) {
    case "prolific_not_configured":
      return {
        title: "Prolific is not set up on this server.",
        todo: "Ask whoever runs the server to set FEEDLAB_PROLIFIC_TOKEN (the API token of your Prolific workspace) and restart it.",
      };
    case "prolific_not_linked":
      return {
        title: "This experiment is not linked to a Prolific study.",
        todo: "Enter the study's id under Prolific on the experiment's page.",
      };
    case "prolific_unavailable":
      return {
        title: `${whatFailed}: Prolific could not be reached, even after several tries.`,
        todo: "Nothing was marked done. Wait a few minutes and try again (status.prolific.com says whether Prolific is down).",
      };
    case "prolific_refused":
      return {
        title: `${whatFailed}: ${error.message}`,
        todo: "Nothing was marked done. Check the study's id and the submissions' statuses on Prolific, then try again.",
      };
    case "payment_unconfirmed":
      return {
        title: "The pay request reached Prolific, but its answer was lost.",
        todo: "Feedlab will not send it again. Check the study's bonuses on Prolific; if nobody was paid, set up a new plan and pay that.",
      };
    case "already_paid":
      return { title: error.message, todo: "Nothing was sent to Prolific." };
    default:
      if (error.status === 403)
        return {
          title: `${whatFailed}: your role in this experiment does not allow it.`,
          todo: "Ask one of the experiment's owners.",
        };
      if (error.status === 0) return { title: `${whatFailed}: ${error.message}`, todo: "Try again." };
      return { title: `${whatFailed}: ${error.message}`, todo: "" };
  }
}

/** A review decision as the API takes it (`POST .../prolific/review`). */
type Decision = ReviewBody["decisions"][number];

/** What the researcher chose in the toolbar or a dialog, applied to each selected submission. */
export type Choice =
  | { action: "approve" }
  | { action: "reject"; rejection_category: string; message: string }
  | { action: "return"; reasons: string[] | null };

/**
 * The decisions for the selected submissions: one each, the same category and message for every
 * rejection; a return's reasons are the researcher's, else the rules that hold for that participant in
 * words, else left to the server's default.
 */
export function decisionsFor(choice: Choice, selected: readonly ProlificSubmission[]): Decision[] {
  return selected.map((s): Decision => {
    const submission_id = s.submission_id;
    if (choice.action === "approve") return { submission_id, action: "approve" };
    if (choice.action === "reject")
      return {
        submission_id,
        action: "reject",
        rejection_category: choice.rejection_category,
        message: choice.message.trim(),
      };
    const reasons = choice.reasons ?? returnReasonsOf(s);
    return reasons ? { submission_id, action: "return", reasons } : { submission_id, action: "return" };
  });
}

/** Past tense of each action, for the result column. */
export const DONE_WORDS: Record<Choice["action"], string> = {
  approve: "Approved",
  reject: "Rejected",
  return: "Return requested",
};
