import type { PowerResult } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { niceTicks, PLOT, powerPlot, powerQuery } from "./power.ts";

const result: PowerResult = {
  metric: "ctr",
  method: "resampling",
  baseline: 0.1,
  effect: 0.02,
  icc: 0.05,
  alpha: 0.05,
  power: 0.8,
  impressions_per_participant: 50,
  design_effect: 3.45,
  per_arm_needed: 265,
  participants_per_arm_now: 100,
  power_now: 0.4,
  curve: [
    { participants_per_arm: 2, power: 0.05 },
    { participants_per_arm: 265, power: 0.8 },
    { participants_per_arm: 530, power: 0.98 },
  ],
  simulated: [{ participants_per_arm: 265, power: 0.81 }],
};

describe("the power calculator", () => {
  it("sends rates as shares and leaves empty optional fields to the route's defaults", () => {
    expect(
      powerQuery({
        metric: "ctr",
        effectPoints: 2.3,
        alpha: 0.05,
        power: null,
        baselinePercent: 10,
        icc: 0.05,
        perParticipant: null,
      }),
    ).toEqual({
      metric: "ctr",
      effect: 0.023,
      alpha: 0.05,
      power: undefined,
      baseline: 0.1,
      icc: 0.05,
      impressions_per_participant: undefined,
    });
  });

  it("picks round ticks up to the largest size", () => {
    expect(niceTicks(530)).toEqual([0, 200, 400, 600]);
    expect(niceTicks(20)).toEqual([0, 5, 10, 15, 20]);
    expect(niceTicks(0)).toEqual([0]);
  });

  it("plots power upwards against participants to the right, marks the answer and the study now, and says so in words", () => {
    const plot = powerPlot(result);
    const bottom = PLOT.height - PLOT.bottom;
    // 0% at the bottom of the drawing area, 100% at its top; the axis runs to the last tick (600).
    expect(plot.yTicks[0]).toEqual({ value: 0, y: bottom });
    expect(plot.yTicks.at(-1)).toEqual({ value: 1, y: PLOT.top });
    const x = (n: number) => PLOT.left + ((PLOT.width - PLOT.left - PLOT.right) * n) / 600;
    expect(plot.path.startsWith(`M${x(2).toFixed(1)},`)).toBe(true);
    expect(plot.needed?.x).toBeCloseTo(x(265), 9);
    expect(plot.now).toMatchObject({ n: 100 });
    expect(plot.now?.x).toBeCloseTo(x(100), 9);
    expect(plot.targetY).toBeCloseTo(PLOT.top + (bottom - PLOT.top) * 0.2, 9);
    expect(plot.simulated).toHaveLength(1);
    expect(plot.description).toBe(
      "Power rises from 5% with 2 participants per arm to 98% with 530. The asked 80% is reached with 265 participants per arm. With 100 per arm now, the power is 40%.",
    );
  });

  it("says when resampling found no size and the study has no participants", () => {
    const plot = powerPlot({ ...result, per_arm_needed: null, power_now: null, participants_per_arm_now: 0 });
    expect(plot.needed).toBeNull();
    expect(plot.now).toBeNull();
    expect(plot.description).toContain("needs more participants than resampling searches");
    expect(plot.description).toContain("no participants in an arm yet");
  });
});
