import type { PowerMetric, PowerResult } from "@feedlab/schemas";
import type { Query } from "../../participant-api.ts";

/** The calculator's form as the researcher fills it: rates in percent, the rest as the route takes them. */
export interface PowerForm {
  metric: PowerMetric;
  /** Percentage points (2 = 0.02). */
  effectPoints: number | null;
  alpha: number | null;
  power: number | null;
  /** Percent; with icc, the route uses assumed rates instead of the pilot. */
  baselinePercent: number | null;
  icc: number | null;
  perParticipant: number | null;
}

/** The metrics and the unit each one's denominator counts, as the form names them. */
export const POWER_METRIC_LABELS: Record<PowerMetric, { label: string; unit: string }> = {
  ctr: { label: "Click-through rate", unit: "impressions" },
  completion_rate: { label: "Completion rate", unit: "plays" },
  like_rate: { label: "Like rate", unit: "plays" },
};

const given = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The route's query from the form; empty optional fields are left out (the route's defaults). */
export function powerQuery(form: PowerForm): Query {
  return {
    metric: form.metric,
    effect: given(form.effectPoints) ? round(form.effectPoints / 100) : undefined,
    alpha: given(form.alpha) ? form.alpha : undefined,
    power: given(form.power) ? form.power : undefined,
    baseline: given(form.baselinePercent) ? round(form.baselinePercent / 100) : undefined,
    icc: given(form.icc) ? form.icc : undefined,
    impressions_per_participant: given(form.perParticipant) ? form.perParticipant : undefined,
  };
}

/** Percent to a share without the float noise of the division (2.3 / 100 = 0.023, not 0.022999…). */
const round = (x: number) => Number(x.toPrecision(12));

/** The plot's frame in SVG units: the drawing area inside the axes' margins. */
export const PLOT = { width: 560, height: 240, left: 48, right: 16, top: 12, bottom: 40 } as const;

/** Ticks of an axis from 0 to at least max: at most about five round steps (1, 2 or 5 times a power of ten). */
export function niceTicks(max: number, count = 5): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  // The last tick is at or past max, so the axis covers the whole curve.
  for (let t = 0; t < max + step - 1e-9; t += step) ticks.push(Math.round(t * 1e9) / 1e9);
  return ticks;
}

/** What the plot draws, in SVG coordinates: the curve, the asked power, the answer and the study now. */
export interface PowerPlot {
  readonly path: string;
  readonly xTicks: { value: number; x: number }[];
  readonly yTicks: { value: number; y: number }[];
  readonly targetY: number;
  readonly needed: { x: number; n: number } | null;
  readonly now: { x: number; y: number; n: number } | null;
  readonly simulated: { x: number; y: number; n: number; power: number }[];
  /** The plot's text alternative: what the curve shows in one or two sentences. */
  readonly description: string;
}

/** Lays out power (0-1, vertical) against participants per arm (horizontal) for the SVG. */
export function powerPlot(result: PowerResult): PowerPlot {
  const { width, height, left, right, top, bottom } = PLOT;
  const last = result.curve.at(-1)?.participants_per_arm ?? 2;
  const xTicks = niceTicks(last);
  const xMax = Math.max(last, xTicks.at(-1) ?? last);
  const x = (n: number) => left + ((width - left - right) * n) / xMax;
  const y = (p: number) => top + (height - top - bottom) * (1 - p);
  const path = result.curve
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(p.participants_per_arm).toFixed(1)},${y(p.power).toFixed(1)}`)
    .join(" ");
  const now =
    result.power_now !== null &&
    result.participants_per_arm_now > 0 &&
    result.participants_per_arm_now <= xMax
      ? { x: x(result.participants_per_arm_now), y: y(result.power_now), n: result.participants_per_arm_now }
      : null;
  const needed =
    result.per_arm_needed !== null && result.per_arm_needed <= xMax
      ? { x: x(result.per_arm_needed), n: result.per_arm_needed }
      : null;
  const pct = (p: number) => `${Math.round(p * 100)}%`;
  const first = result.curve[0];
  const description = [
    first
      ? `Power rises from ${pct(first.power)} with ${first.participants_per_arm} participants per arm to ${pct(result.curve.at(-1)?.power ?? first.power)} with ${last}.`
      : "",
    result.per_arm_needed === null
      ? `The asked ${pct(result.power)} needs more participants than resampling searches.`
      : `The asked ${pct(result.power)} is reached with ${result.per_arm_needed} participants per arm.`,
    result.power_now === null
      ? "The study has no participants in an arm yet."
      : `With ${result.participants_per_arm_now} per arm now, the power is ${pct(result.power_now)}.`,
  ]
    .filter((s) => s !== "")
    .join(" ");
  return {
    path,
    xTicks: xTicks.map((value) => ({ value, x: x(value) })),
    yTicks: [0, 0.25, 0.5, 0.75, 1].map((value) => ({ value, y: y(value) })),
    targetY: y(result.power),
    needed,
    now,
    simulated: result.simulated
      .filter((s) => s.participants_per_arm <= xMax)
      .map((s) => ({
        x: x(s.participants_per_arm),
        y: y(s.power),
        n: s.participants_per_arm,
        power: s.power,
      })),
    description,
  };
}
