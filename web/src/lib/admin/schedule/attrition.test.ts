import { describe, expect, it } from "vitest";
import {
  attritionPlot,
  countsOf,
  differentialWords,
  lapsedOf,
  ATTRITION_PLOT as PLOT,
  retained,
  sessionsOf,
  testFigures,
} from "./attrition.ts";

const arm = (name: string, started: number[], lapsed: number[]) => ({
  group_id: `g-${name}`,
  name,
  sessions: started.map((s, i) => ({ session: i + 1, started: s, lapsed: lapsed[i] ?? 0 })),
});

const A = arm("A", [40, 30, 20], [0, 8, 6]);
const B = arm("B", [10, 10], [0, 0]);

describe("the attrition table", () => {
  it("lists the sessions from 1 to the last any arm has, and zeros for a session an arm lacks", () => {
    expect(sessionsOf({ arms: [A, B] })).toEqual([1, 2, 3]);
    expect(sessionsOf({ arms: [] })).toEqual([1]);
    expect(countsOf(B, 3)).toEqual({ started: 0, lapsed: 0 });
    expect(countsOf(A, 2)).toEqual({ started: 30, lapsed: 8 });
  });

  it("gives each later session's count with its share of session 1, and adds up the lapsed", () => {
    expect(retained(A, 1)).toBe("40");
    expect(retained(A, 3)).toBe("20 (50.0%)");
    expect(retained(arm("C", [0, 0], []), 2)).toBe("0");
    expect(lapsedOf(A)).toBe(14);
  });
});

describe("the attrition chart", () => {
  it("draws one line per arm from session 1 at the left to the last at the right, the most at the top", () => {
    const plot = attritionPlot({ arms: [A, B] });
    const [a, b] = plot.lines;
    expect(plot.lines.map((l) => l.name)).toEqual(["A", "B"]);
    expect(a?.points.map((p) => p.started)).toEqual([40, 30, 20]);
    expect(a?.points[0]?.x).toBe(PLOT.left);
    expect(a?.points[2]?.x).toBe(PLOT.width - PLOT.right);
    expect(a?.points[0]?.y).toBe(PLOT.top);
    expect(b?.points[2]?.y).toBe(PLOT.height - PLOT.bottom);
    expect(a?.path.startsWith(`M${PLOT.left.toFixed(1)},${PLOT.top.toFixed(1)} L`)).toBe(true);
    expect(a?.colour).not.toBe(b?.colour);
    expect(plot.xTicks.map((t) => t.value)).toEqual([1, 2, 3]);
    expect(plot.yTicks.at(-1)?.value).toBe(40);
  });

  it("puts a lone session in the middle, and labels about ten of many sessions, the last among them", () => {
    const one = attritionPlot({ arms: [arm("A", [5], [])] });
    expect(one.lines[0]?.points[0]?.x).toBe((PLOT.left + PLOT.width - PLOT.right) / 2);
    const many = attritionPlot({
      arms: [
        arm(
          "A",
          Array.from({ length: 30 }, () => 1),
          [],
        ),
      ],
    });
    expect(many.xTicks.length).toBeLessThanOrEqual(11);
    expect(many.xTicks.at(-1)?.value).toBe(30);
  });

  it("describes each arm's first and last session and its lapsed in words", () => {
    expect(attritionPlot({ arms: [A, B] }).description).toBe(
      "A: 40 began session 1, 20 (50.0%) began session 3, the last; 14 lapsed. B: 10 began session 1, 0 (0.0%) began session 3, the last; 0 lapsed.",
    );
    expect(attritionPlot({ arms: [] }).description).toBe("No arms yet.");
  });
});

describe("the sentence about differential attrition", () => {
  it("warns that per-arm comparisons may be biased when p is below 0.05", () => {
    expect(differentialWords({ chi_square: 5.4123, df: 1, p: 0.02 })).toEqual({
      text: "Attrition differs between arms (χ²=5.41, df=1, p=0.020): per-arm comparisons may be biased.",
      differs: true,
    });
  });

  it("says there is no evidence of a difference otherwise, and writes a tiny p as below 0.001", () => {
    expect(differentialWords({ chi_square: 0.4, df: 2, p: 0.82 })).toEqual({
      text: "No evidence that attrition differs between arms (χ²=0.40, df=2, p=0.820).",
      differs: false,
    });
    expect(testFigures({ chi_square: 30, df: 1, p: 1e-8 })).toBe("(χ²=30.00, df=1, p<0.001)");
  });

  it("says why there is no test with fewer than two arms with participants", () => {
    expect(differentialWords(null).text).toMatch(/needs at least two arms with participants/);
  });
});
