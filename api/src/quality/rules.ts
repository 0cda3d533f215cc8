import type { ExclusionRule, ParticipantQuality, QualityMeasure } from "@feedlab/schemas";

/** The measures of a participant that rules read (api.md "Data quality and validity"). */
export type Measures = Pick<
  ParticipantQuality,
  | "active_seconds"
  | "visible_watch_seconds"
  | "watch_seconds"
  | "hidden_share"
  | "pointer_events"
  | "seconds_per_question"
  | "straight_lined"
  | "attention"
  | "duplicate_recruiting_id"
>;

/** A measure's value by its name in a rule; null when the participant has none (no timed survey). */
export function measureOf(m: Measures, measure: QualityMeasure): number | boolean | null {
  switch (measure) {
    case "attention_passed":
      return m.attention.passed;
    case "attention_failed":
      return m.attention.failed;
    default:
      return m[measure];
  }
}

/** Whether one rule holds: a null measure never holds, nor does a boolean against a number. */
export function ruleHolds(rule: ExclusionRule, m: Measures): boolean {
  const v = measureOf(m, rule.measure);
  if (v === null || typeof v !== typeof rule.value) return false;
  const [a, b] = typeof v === "boolean" ? [Number(v), Number(rule.value)] : [v, rule.value as number];
  switch (rule.op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "==":
      return a === b;
  }
}

/** The rules that hold for a participant, in the experiment's order (empty: not excluded by the rules). */
export const rulesHolding = (rules: readonly ExclusionRule[], m: Measures): ExclusionRule[] =>
  rules.filter((r) => ruleHolds(r, m));

/** A rule in words, as the results page and the docs write it: `active_seconds < 120`. */
export const ruleText = (r: ExclusionRule): string => `${r.measure} ${r.op} ${String(r.value)}`;
