/**
 * The console's side of api.md "Study definitions and packages": the wire shapes of a plan and an
 * apply, and what the import dialog says about them (a plan's summary, a definition's problems with
 * their line and column, the changes the server refuses). No markup here, so it is tested on its own.
 */
import { ApiError } from "../../participant-api.ts";
import type { DefinitionProblem, StudyChange } from "../../types.ts";

/** What applying the document would do to one resource (`delete`: an arm or survey the file no longer names). */
export type StudyAction = StudyChange["action"];

/** The files the import takes, by extension (browsers give YAML no reliable MIME type). */
export const STUDY_FILE_ACCEPT = ".yaml,.yml,.json,application/json,application/yaml,text/yaml";

/** Why a chosen file cannot be a study document, or null when its extension fits. */
export function studyFileProblem(fileName: string): string | null {
  return /\.(ya?ml|json)$/i.test(fileName)
    ? null
    : `“${fileName}” is not a study file. Choose a .yaml, .yml or .json file (Export study writes one).`;
}

// --- A plan in words ------------------------------------------------------------------------------

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly delete: number;
  readonly unchanged: number;
  readonly refused: number;
  /** "3 to create, 1 to update, 5 unchanged" (counts of zero left out). */
  readonly text: string;
  /** Applying would change something, and nothing is refused. */
  readonly canApply: boolean;
}

export function summarizePlan(changes: readonly StudyChange[]): PlanSummary {
  const count = (action: StudyAction) => changes.filter((c) => c.action === action).length;
  const counts = {
    create: count("create"),
    update: count("update"),
    delete: count("delete"),
    unchanged: count("unchanged"),
    refused: count("refused"),
  };
  const parts = [
    counts.create > 0 ? `${counts.create} to create` : null,
    counts.update > 0 ? `${counts.update} to update` : null,
    counts.delete > 0 ? `${counts.delete} to delete` : null,
    counts.unchanged > 0 ? `${counts.unchanged} unchanged` : null,
    counts.refused > 0 ? `${counts.refused} refused` : null,
  ].filter((p) => p !== null);
  return {
    ...counts,
    text: parts.length > 0 ? parts.join(", ") : "The document holds nothing to apply",
    canApply: counts.refused === 0 && counts.create + counts.update + counts.delete > 0,
  };
}

/**
 * The rows of a plan as the dialog lists them: refusals first (they block the apply), then the changes
 * in the server's order; unchanged ones only when asked, so a pool of thousands of videos does not bury
 * the one arm that changes.
 */
export function planRows(changes: readonly StudyChange[], withUnchanged: boolean): StudyChange[] {
  const shown = changes.filter((c) => withUnchanged || c.action !== "unchanged");
  return [...shown.filter((c) => c.action === "refused"), ...shown.filter((c) => c.action !== "refused")];
}

/** The toast after an apply: "The study file is applied: 2 created, 1 updated." */
export function appliedMessage(changes: readonly StudyChange[]): string {
  const s = summarizePlan(changes);
  const parts = [
    s.create > 0 ? `${s.create} created` : null,
    s.update > 0 ? `${s.update} updated` : null,
    s.delete > 0 ? `${s.delete} deleted` : null,
  ].filter((p) => p !== null);
  return parts.length > 0
    ? `The study file is applied: ${parts.join(", ")}.`
    : "The study file is applied: nothing needed to change.";
}

const RESOURCE_LABELS: Record<string, string> = {
  experiment: "Experiment",
  arm: "Arm",
  layout: "Layout",
  recommender: "Recommender",
  video: "Video",
  pool: "Video pool",
  survey: "Survey",
};

/** A resource's name as the console writes it (one it does not know, from its key). */
export function resourceLabel(resource: string): string {
  const known = RESOURCE_LABELS[resource];
  if (known) return known;
  const words = resource.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const ACTION_LABELS: Record<StudyAction, string> = {
  create: "Create",
  update: "Update",
  delete: "Delete",
  unchanged: "Unchanged",
  refused: "Refused",
};

/** The badge tone of each action (app.css): what it does to the study at a glance. */
export const ACTION_TONES: Record<StudyAction, "good" | "info" | "bad" | ""> = {
  create: "good",
  update: "info",
  delete: "bad",
  unchanged: "",
  refused: "bad",
};

/** The refusals api.md names, in the words the console uses when it refuses the same change. */
const REFUSAL_TEXT: Record<string, string> = {
  group_has_participants: "Participants are assigned to this arm, so it cannot be deleted.",
  video_in_running_study: "A running study’s pool holds this video.",
  template_in_use: "An arm uses this layout.",
  active_survey_exists: "The experiment already has an active survey of this kind.",
  survey_has_responses: "Participants have answered this survey; applying never deletes responses.",
};

/** Why a change is refused (or a note on it): the server's sentence, else its refusal code in words. */
export function reasonOf(change: Pick<StudyChange, "reason" | "code">): string | undefined {
  if (change.reason) return change.reason;
  return change.code ? (REFUSAL_TEXT[change.code] ?? change.code) : undefined;
}

// --- Problems of a document ------------------------------------------------------------------------

/** `/arms/1/algorithm/feed` (a JSON pointer) as `arms[1].algorithm.feed`; other paths as they are. */
export function readablePath(path: string): string {
  if (!path.startsWith("/")) return path;
  return path
    .slice(1)
    .split("/")
    .filter((s) => s !== "")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((out, s) => (/^\d+$/.test(s) ? `${out}[${s}]` : out ? `${out}.${s}` : s), "");
}

/** "line 12, column 5: arms[1].algorithm.feed: must be …" (the parts the server knows). */
export function formatProblem(problem: DefinitionProblem): string {
  const where =
    problem.line !== undefined
      ? `line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ""}`
      : null;
  const path = readablePath(problem.path ?? "");
  return [where, path || null, problem.message].filter((p) => p !== null).join(": ");
}

/** Why a check or an apply failed, as the dialog shows it. */
export type StudyFailure =
  /** The document breaks the schema: each problem, with its line and column when known. */
  | { kind: "invalid"; message: string; problems: DefinitionProblem[] }
  /** Changes the console would refuse: nothing is applied. */
  | { kind: "refused"; message: string; changes: StudyChange[] }
  /** Any other refusal of the request (an experiment that is gone, say). */
  | { kind: "other"; message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function problemsOf(details: unknown): DefinitionProblem[] {
  const list = Array.isArray(details)
    ? details
    : isRecord(details)
      ? (details.problems ?? details.errors)
      : [];
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((p) => ({
    path: typeof p.path === "string" ? p.path : "",
    message: typeof p.message === "string" ? p.message : "is not valid",
    ...(typeof p.line === "number" ? { line: p.line } : {}),
    ...(typeof p.column === "number" ? { column: p.column } : {}),
  }));
}

function refusalsOf(details: unknown): StudyChange[] {
  const list = Array.isArray(details)
    ? details
    : isRecord(details)
      ? (details.changes ?? details.refusals ?? details.refused)
      : [];
  if (!Array.isArray(list)) return [];
  return list
    .filter(isRecord)
    .filter((c) => c.action === undefined || c.action === "refused")
    .map((c) => ({
      // Shown as given: a resource this console does not know yet is still named.
      resource: String(c.resource ?? "") as StudyChange["resource"],
      name: typeof c.name === "string" ? c.name : "",
      action: "refused" as const,
      ...(typeof c.reason === "string" ? { reason: c.reason } : {}),
      ...(typeof c.code === "string" ? { code: c.code } : {}),
      ...(Array.isArray(c.fields) ? { fields: c.fields.filter((f) => typeof f === "string") } : {}),
    }));
}

/**
 * What the dialog shows for a failed plan or apply; null for failures that are not about the document
 * (not signed in, the server down), which go to the app's `handleError`.
 */
export function studyFailure(error: unknown): StudyFailure | null {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500 || error.status === 401) {
    return null;
  }
  if (error.status === 422) {
    const problems = problemsOf(error.details);
    if (problems.length > 0) return { kind: "invalid", message: error.message, problems };
  }
  if (error.status === 409) {
    const changes = refusalsOf(error.details);
    if (changes.length > 0) return { kind: "refused", message: error.message, changes };
  }
  return { kind: "other", message: error.message };
}

/** Where `line` and `column` (both from 1, as the server counts) fall in `text`, clamped to it. */
export function offsetOf(text: string, line: number, column = 1): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf("\n", offset);
  const lineEnd = end < 0 ? text.length : end;
  return Math.min(offset + Math.max(0, column - 1), lineEnd);
}
