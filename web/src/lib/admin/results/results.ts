import type { ExperimentTimeline, Rate } from "../../types.ts";
import { formatRate as percent } from "../model-runs.ts";

/** A share as a percentage with one decimal ("12.5%"); a dash when unknown (the model runs' format). */
export { percent };

/** A rate and its 95% interval as a researcher reads it: "15.0% (4.0%–26.2%)". */
export function formatRate(rate: Rate): string {
  if (rate.value === null) return "—";
  if (rate.low === null || rate.high === null) return `${percent(rate.value)} (one participant)`;
  return `${percent(rate.value)} (${percent(rate.low)}–${percent(rate.high)})`;
}

export const TIMELINE_METRICS = {
  joined: "Participants joined",
  impressions: "Impressions",
  feed_clicks: "Feed clicks",
  plays: "Plays",
  completions: "Completions",
  likes: "Likes",
} as const;
export type TimelineMetric = keyof typeof TIMELINE_METRICS;

/** One point of a cumulative series: the arm, the end of its bucket and the running total. */
export interface CumulativePoint {
  readonly arm: string;
  readonly at: Date;
  readonly total: number;
}

/**
 * Running totals of a metric per arm, one point per bucket with counts, each arm starting from 0 at
 * the first bucket of the study (so lines start together).
 */
export function cumulative(timeline: ExperimentTimeline, metric: TimelineMetric): CumulativePoint[] {
  const first = Math.min(
    ...timeline.groups.flatMap((g) => g.points.map((p) => Date.parse(p.at))),
    Number.POSITIVE_INFINITY,
  );
  const out: CumulativePoint[] = [];
  for (const g of timeline.groups) {
    if (g.points.length === 0) continue;
    let total = 0;
    if (Number.isFinite(first) && Date.parse(g.points[0]?.at ?? "") > first)
      out.push({ arm: g.name, at: new Date(first), total: 0 });
    for (const p of g.points) {
      total += p[metric];
      out.push({ arm: g.name, at: new Date(p.at), total });
    }
  }
  return out;
}
