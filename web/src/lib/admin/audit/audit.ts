import { auditActionLabel } from "@feedlab/schemas/http/audit-actions.ts";
import { countOf } from "../../format.ts";
import type { AuditEntry } from "../../types.ts";

/** How many entries a page of the console's audit log shows at a time. */
export const AUDIT_PAGE = 100;

/**
 * A thing an entry is about (`details.about`, api.md `GET /api/v1/admin/audit`): named as it was when
 * the action was recorded; a participant by their login id while they exist, by id alone once erased.
 */
interface AuditSubject {
  readonly kind: string;
  readonly id: string;
  readonly name?: string;
}

/** One changed field of an arm (`details.changes`), its values in words. */
interface AuditFieldChange {
  readonly field: string;
  readonly from: string;
  readonly to: string;
}

export const actionLabel = auditActionLabel;

/** Field names as the researcher reads them (a group is an arm in the console). */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  group_id: "arm",
  group_ids: "arms",
  algorithm_config: "recommenders",
  "algorithm_config.feed": "feed recommender",
  "algorithm_config.watch": "watch recommender",
  ui_config: "layouts",
  "ui_config.feed": "feed layout",
  "ui_config.watch": "watch layout",
  recommender_params: "recommender parameters",
  login_id: "login ID",
  video_ids: "videos",
  is_active: "active",
};

/** A field name in words: `consent_text` -> "consent text". */
const fieldWords = (field: string): string => FIELD_WORDS[field] ?? field.replaceAll("_", " ");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The entry's subjects, outermost first and its target last (none on entries older than names). */
function subjectsOf(entry: Pick<AuditEntry, "details">): AuditSubject[] {
  const about = entry.details.about;
  if (!Array.isArray(about)) return [];
  return about.filter(
    (s): s is AuditSubject => isRecord(s) && typeof s.kind === "string" && typeof s.id === "string",
  );
}

/** The changed fields of an arm's update, when the entry records them. */
function changesOf(entry: Pick<AuditEntry, "details">): AuditFieldChange[] | null {
  const changes = entry.details.changes;
  if (!Array.isArray(changes)) return null;
  return changes.filter(
    (c): c is AuditFieldChange =>
      isRecord(c) && typeof c.field === "string" && typeof c.from === "string" && typeof c.to === "string",
  );
}

/** One subject in words: `arm “Control”`; a participant gone from the study: `an erased participant`. */
function subjectWords(s: AuditSubject): string {
  if (s.name !== undefined) return `${s.kind} “${s.name}”`;
  if (s.kind === "participant") return "an erased participant";
  return `a ${s.kind} no longer named`;
}

/**
 * What the entry is about, in words, innermost first: `Arm “Control” in experiment “Pilot”`. Null
 * when it names nothing; an admin's entry names the admin.
 */
export function describeTarget(entry: Pick<AuditEntry, "action" | "target" | "details">): string | null {
  const subjects = subjectsOf(entry);
  if (subjects.length > 0) {
    const text = [...subjects].reverse().map(subjectWords).join(" in ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  if (entry.target && /^(admin|auth)\./.test(entry.action)) return `Admin “${entry.target}”`;
  return null;
}

/**
 * The ids the entry concerns, to show beside their names, innermost first: each subject's with its
 * kind, or the bare target (kind null) on entries that name nothing.
 */
export function idsOf(
  entry: Pick<AuditEntry, "action" | "target" | "details">,
): { kind: string | null; id: string }[] {
  const subjects = subjectsOf(entry);
  if (subjects.length > 0) return [...subjects].reverse().map((s) => ({ kind: s.kind, id: s.id }));
  if (/^(admin|auth)\./.test(entry.action)) return [];
  return entry.target ? [{ kind: null, id: entry.target }] : [];
}

/** An erasure's row counts in words: "1 participant, 2 sessions, 1 survey response". */
function rowsWords(rows: Record<string, unknown>): string {
  const count = (k: string) => (typeof rows[k] === "number" ? (rows[k] as number) : 0);
  return [
    countOf(count("participants"), "participant"),
    countOf(count("sessions"), "session"),
    countOf(count("survey_responses"), "survey response"),
    ...(typeof rows.log_records === "number" ? [countOf(rows.log_records, "logged event")] : []),
  ].join(", ");
}

const valueWords = (v: unknown): string =>
  Array.isArray(v) ? v.map(valueWords).join(", ") : typeof v === "string" ? v : JSON.stringify(v);

/**
 * The entry's details in words, one line each: an arm's changes as `feed recommender: Recency →
 * Popularity`, the fields sent, the few values recorded, an erasure's counts, the address.
 */
export function describeDetails(entry: Pick<AuditEntry, "details">): string[] {
  const lines: string[] = [];
  const changes = changesOf(entry);
  if (changes) {
    if (changes.length === 0) lines.push("Nothing changed");
    for (const c of changes) lines.push(`${fieldWords(c.field)}: ${c.from} → ${c.to}`);
  }
  for (const [key, value] of Object.entries(entry.details)) {
    if (key === "about" || key === "changes" || key === "address") continue;
    if (key === "fields") {
      if (!changes && Array.isArray(value) && value.length > 0)
        lines.push(`Fields: ${value.map((f) => fieldWords(String(f))).join(", ")}`);
    } else if (key === "rows" && isRecord(value)) lines.push(`Removed ${rowsWords(value)}`);
    else lines.push(`${fieldWords(key)}: ${valueWords(value)}`);
  }
  if (typeof entry.details.address === "string") lines.push(`From ${entry.details.address}`);
  return lines;
}
