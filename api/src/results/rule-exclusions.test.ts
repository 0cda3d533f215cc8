import type { ExclusionRule } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { exclusionBalance, perRule } from "./rule-exclusions.ts";

describe("the balance of exclusion across arms", () => {
  it("flags arms the rules thinned unequally, with Pearson's chi-square as computed by hand", () => {
    // 10 of 100 excluded against 30 of 100: 40 of 200 overall, so 20 expected excluded and 80 kept per arm.
    // chi-square = 2 * ((10 - 20)^2 / 20 + (90 - 80)^2 / 80) = 12.5 on 1 degree of freedom: p = 0.000407.
    const b = exclusionBalance([
      { excluded: 10, kept: 90 },
      { excluded: 30, kept: 70 },
    ]);
    expect(b.chi_square).toBeCloseTo(12.5, 10);
    expect(b.p_value).toBeCloseTo(0.000407, 5);
    expect(b.unequal).toBe(true);
  });

  it("does not flag arms the rules thinned alike", () => {
    const b = exclusionBalance([
      { excluded: 10, kept: 90 },
      { excluded: 11, kept: 89 },
      { excluded: 9, kept: 91 },
    ]);
    expect(b.p_value).toBeGreaterThan(0.5);
    expect(b.unequal).toBe(false);
  });

  it("answers no test when the rules excluded no one, or with one arm", () => {
    expect(
      exclusionBalance([
        { excluded: 0, kept: 5 },
        { excluded: 0, kept: 7 },
      ]),
    ).toEqual({
      chi_square: null,
      p_value: null,
      unequal: false,
    });
    expect(exclusionBalance([{ excluded: 2, kept: 5 }]).p_value).toBeNull();
  });
});

describe("exclusions per rule", () => {
  it("counts a participant under every rule they break, in the rules' order", () => {
    const active: ExclusionRule = { measure: "active_seconds", op: "<", value: 120 };
    const attention: ExclusionRule = { measure: "attention_failed", op: ">=", value: 1 };
    expect(perRule([active, attention], [[active], [active, attention], []])).toEqual([
      { rule: "active_seconds < 120", excluded: 2 },
      { rule: "attention_failed >= 1", excluded: 1 },
    ]);
  });
});
