import type { Attrition } from "@feedlab/schemas";
import { niceTicks } from "../results/power.ts";
import { armColour, count, percent } from "../results/results.ts";

/*
 * The Results page's Attrition card without its component (api.md "Longitudinal studies (wave 4)",
 * `GET .../attrition`): the chart's layout in SVG units, its text alternative, the table's cells and
 * the sentence about the differential attrition test.
 */

type Arm = Attrition["arms"][number];
type Differential = NonNullable<Attrition["differential"]>;

/** The drawing's frame in SVG units: the plotting area inside the axes' margins. */
export const ATTRITION_PLOT = { width: 560, height: 240, left: 48, right: 16, top: 12, bottom: 40 } as const;

/** Below this p the card says attrition differs between the arms. */
const ALPHA = 0.05;

/** The sessions the card shows, 1 to the last any arm lists, in order. */
export function sessionsOf(attrition: Pick<Attrition, "arms">): number[] {
  const last = Math.max(1, ...attrition.arms.flatMap((a) => a.sessions.map((s) => s.session)));
  return Array.from({ length: last }, (_, i) => i + 1);
}

/** An arm's counts for one session; zeros for a session it does not list. */
export function countsOf(arm: Pick<Arm, "sessions">, session: number): { started: number; lapsed: number } {
  const s = arm.sessions.find((x) => x.session === session);
  return { started: s?.started ?? 0, lapsed: s?.lapsed ?? 0 };
}

/** The participants of an arm who began session 1, and of those the share still there at `session`. */
export function retained(arm: Pick<Arm, "sessions">, session: number): string {
  const first = countsOf(arm, 1).started;
  const now = countsOf(arm, session).started;
  return session === 1 || first === 0 ? count(now) : `${count(now)} (${percent(now / first)})`;
}

/** Participants of an arm whose window closed unused, over every session. */
export const lapsedOf = (arm: Pick<Arm, "sessions">): number =>
  arm.sessions.reduce((sum, s) => sum + s.lapsed, 0);

/** One arm's line: its colour, its path and its points, in SVG units. */
interface AttritionLine {
  readonly groupId: string;
  readonly name: string;
  readonly colour: string;
  readonly path: string;
  readonly points: readonly { x: number; y: number; session: number; started: number }[];
}

/** What the chart draws, in SVG coordinates, and what it shows in words. */
export interface AttritionPlot {
  readonly lines: readonly AttritionLine[];
  readonly xTicks: readonly { value: number; x: number }[];
  readonly yTicks: readonly { value: number; y: number }[];
  /** The chart's text alternative: per arm, how many began the first session and reached the last. */
  readonly description: string;
}

/**
 * Lays out participants who began each session (vertical, from 0) against the session (horizontal,
 * 1 to the last), one line per arm in the arms' colours. A study with one session puts it in the middle.
 */
export function attritionPlot(attrition: Pick<Attrition, "arms">): AttritionPlot {
  const { width, height, left, right, top, bottom } = ATTRITION_PLOT;
  const sessions = sessionsOf(attrition);
  const last = sessions.length;
  const yTicks = niceTicks(Math.max(1, ...attrition.arms.flatMap((a) => a.sessions.map((s) => s.started))));
  const yMax = yTicks.at(-1) ?? 1;
  const x = (session: number) =>
    last === 1 ? (left + width - right) / 2 : left + ((width - left - right) * (session - 1)) / (last - 1);
  const y = (n: number) => top + ((height - top - bottom) * (yMax - n)) / yMax;
  // At most about ten labelled sessions, so the labels never run into each other.
  const step = Math.max(1, Math.ceil(last / 10));
  const lines = attrition.arms.map((arm, i) => {
    const points = sessions.map((session) => {
      const { started } = countsOf(arm, session);
      return { x: x(session), y: y(started), session, started };
    });
    return {
      groupId: arm.group_id,
      name: arm.name,
      colour: armColour(i),
      path: points.map((p, j) => `${j === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" "),
      points,
    };
  });
  return {
    lines,
    xTicks: sessions
      .filter((s) => (s - 1) % step === 0 || s === last)
      .map((value) => ({ value, x: x(value) })),
    yTicks: yTicks.map((value) => ({ value, y: y(value) })),
    description: describe(attrition.arms, last),
  };
}

function describe(arms: readonly Arm[], last: number): string {
  if (arms.length === 0) return "No arms yet.";
  return arms
    .map((arm) => {
      const first = countsOf(arm, 1).started;
      const lapsed = lapsedOf(arm);
      const reached = last === 1 ? "" : `, ${retained(arm, last)} began session ${last}, the last`;
      return `${arm.name}: ${count(first)} began session 1${reached}; ${count(lapsed)} lapsed.`;
    })
    .join(" ");
}

/** A p-value as the sentence shows it: "p=0.021", or "p<0.001" for a smaller one. */
const pText = (p: number) => (p < 0.001 ? "p<0.001" : `p=${p.toFixed(3)}`);

/** The test's figures in brackets: "(χ²=5.41, df=1, p=0.020)". */
export const testFigures = (d: Differential): string =>
  `(χ²=${d.chi_square.toFixed(2)}, df=${d.df}, ${pText(d.p)})`;

/**
 * The sentence about differential attrition: whether the arms lose participants at different rates
 * (a chi-square of arm by reached-the-last-session), which biases any comparison of the arms among
 * those who stayed. `differs` marks the sentence as a warning.
 */
export function differentialWords(d: Attrition["differential"]): { text: string; differs: boolean } {
  if (d === null)
    return {
      text: "No test of whether attrition differs between arms yet: it needs at least two arms with participants.",
      differs: false,
    };
  return d.p < ALPHA
    ? {
        text: `Attrition differs between arms ${testFigures(d)}: per-arm comparisons may be biased.`,
        differs: true,
      }
    : { text: `No evidence that attrition differs between arms ${testFigures(d)}.`, differs: false };
}
