import type { ExclusionRule } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { type Measures, measureOf, ruleHolds, rulesHolding, ruleText } from "./rules.ts";

const m: Measures = {
  active_seconds: 100,
  visible_watch_seconds: 10,
  watch_seconds: 20,
  hidden_share: 0.6,
  pointer_events: 0,
  seconds_per_question: null,
  straight_lined: true,
  attention: { passed: 2, failed: 1 },
  duplicate_recruiting_id: false,
};

describe("exclusion rules over a participant's measures", () => {
  it("reads the attention counts by their rule names", () => {
    expect(measureOf(m, "attention_failed")).toBe(1);
    expect(measureOf(m, "attention_passed")).toBe(2);
    expect(measureOf(m, "hidden_share")).toBe(0.6);
  });

  it.each<[ExclusionRule, boolean]>([
    [{ measure: "active_seconds", op: "<", value: 120 }, true],
    [{ measure: "active_seconds", op: "<", value: 100 }, false],
    [{ measure: "active_seconds", op: "<=", value: 100 }, true],
    [{ measure: "hidden_share", op: ">", value: 0.5 }, true],
    [{ measure: "attention_failed", op: ">=", value: 1 }, true],
    [{ measure: "straight_lined", op: "==", value: true }, true],
    [{ measure: "duplicate_recruiting_id", op: "==", value: true }, false],
    // A null measure never holds, nor a boolean rule over a number.
    [{ measure: "seconds_per_question", op: "<", value: 2 }, false],
    [{ measure: "active_seconds", op: "==", value: true }, false],
  ])("%j holds: %s", (rule, holds) => {
    expect(ruleHolds(rule, m)).toBe(holds);
  });

  it("answers the rules that hold, in the experiment's order, and writes them as the docs do", () => {
    const rules: ExclusionRule[] = [
      { measure: "seconds_per_question", op: "<", value: 2 },
      { measure: "attention_failed", op: ">=", value: 1 },
      { measure: "hidden_share", op: ">", value: 0.5 },
    ];
    expect(rulesHolding(rules, m).map(ruleText)).toEqual(["attention_failed >= 1", "hidden_share > 0.5"]);
  });
});
