import type { ParticipantQuality } from "@feedlab/schemas";

/**
 * The quality columns of the participants CSV (api.md "Data quality and validity"; docs/quality.md),
 * appended after every other column (`excluded_reason`), in this order. `quality_flags` joins the
 * flags' names with `|`; `attention_passed` and `attention_failed` split `attention`.
 */
export const QUALITY_CSV_COLUMNS = [
  "active_seconds",
  "visible_watch_seconds",
  "watch_seconds",
  "hidden_share",
  "pointer_events",
  "viewport_width",
  "seconds_per_question",
  "straight_lined",
  "attention_passed",
  "attention_failed",
  "duplicate_recruiting_id",
  "quality_flags",
  "excluded_by_rules",
] as const;

/** A participant's quality cells, in QUALITY_CSV_COLUMNS order (empty cells for a null measure). */
export function qualityCells(q: ParticipantQuality | undefined): (string | number | null)[] {
  if (!q) return QUALITY_CSV_COLUMNS.map(() => null);
  const bool = (b: boolean) => (b ? "true" : "false");
  return [
    q.active_seconds,
    q.visible_watch_seconds,
    q.watch_seconds,
    q.hidden_share,
    q.pointer_events,
    q.viewport_width,
    q.seconds_per_question,
    bool(q.straight_lined),
    q.attention.passed,
    q.attention.failed,
    bool(q.duplicate_recruiting_id),
    q.flags.join("|"),
    bool(q.excluded_by_rules),
  ];
}
