import { clockOff } from "@feedlab/schemas/http/stats.ts";
import type {
  ExperimentCompleteness,
  ExperimentStats,
  ExperimentTimeline,
  Group,
  Rate,
  RecommenderHealth,
} from "../../types.ts";
import { formatRate as percent } from "../recommenders/model-runs.ts";

/** A share as a percentage with one decimal ("12.5%"); a dash when unknown (the model runs' format). */
export { percent };

/**
 * A count as the tables show it, with the thousands separators of `locale` ("12,345" in en-US); the
 * browser's own locale when none is given.
 */
export const count = (x: number, locale?: string): string => x.toLocaleString(locale);

/** An arm by its id, as the tables name it; an arm deleted since keeps its rows. */
export function armName(groups: readonly Pick<Group, "id" | "name">[], id: string): string {
  return groups.find((g) => g.id === id)?.name ?? "(removed arm)";
}

/** The recommenders the arms use now, and any the results name (an arm changed while running). */
export function recommenderKeys(
  groups: readonly Pick<Group, "algorithm_config">[],
  stats: { readonly recommenders: readonly Pick<ExperimentStats["recommenders"][number], "key">[] },
): string[] {
  return [
    ...new Set([
      ...groups.flatMap((g) => [g.algorithm_config.feed, g.algorithm_config.watch]),
      ...stats.recommenders.map((r) => r.key),
    ]),
  ].sort();
}

/** A recommender's failures: "0", or the total and each kind that happened ("4: timeout 3, http 5xx 1"). */
export function failureSummary(health: Pick<RecommenderHealth, "failures">): string {
  const kinds = Object.entries(health.failures).filter(([, n]) => n > 0);
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return "0";
  return `${count(total)}: ${kinds.map(([kind, n]) => `${kind.replace("_", " ")} ${n}`).join(", ")}`;
}

type CompletenessParticipant = ExperimentCompleteness["participants"][number];

/** Participants whose clock is more than a minute off, or who sent times that cannot be right. */
export function offClock<P extends Pick<CompletenessParticipant, "implausible_times" | "clock_offset_ms">>(
  participants: readonly P[],
): P[] {
  return participants.filter(clockOff);
}

/** A clock offset as a researcher reads it: how far behind or ahead of the server. */
export function clockText(ms: number | null): string {
  if (ms === null) return "unknown";
  const minutes = Math.abs(ms) / 60_000;
  const amount = minutes >= 90 ? `${(minutes / 60).toFixed(1)} h` : `${Math.round(minutes)} min`;
  return ms > 0 ? `${amount} behind` : `${amount} ahead`;
}

/** A rate as two lines of a table cell: the estimate, and its interval (or why there is none). */
export function rateParts(rate: Rate): { value: string; interval: string } {
  if (rate.value === null) return { value: "—", interval: "" };
  if (rate.low === null || rate.high === null)
    return { value: percent(rate.value), interval: "(one participant)" };
  return { value: percent(rate.value), interval: `(${percent(rate.low)}–${percent(rate.high)})` };
}

/** The rates the console charts, and the count each is a share of (for "No plays yet in arm X"). */
export const RATE_DENOMINATORS = {
  ctr: "impressions",
  completion_rate: "plays",
  like_rate: "plays",
} as const;
export type RateKey = keyof typeof RATE_DENOMINATORS;

/**
 * One colour per arm, in the arms' order, the same in every chart. Dark enough for 3:1 against
 * white (WCAG 1.4.11, graphics); after ten arms the colours repeat.
 */
const ARM_COLOURS = [
  "#2f5bd3",
  "#c2410c",
  "#15803d",
  "#9333ea",
  "#b91c1c",
  "#0e7490",
  "#a16207",
  "#be185d",
  "#4d7c0f",
  "#475569",
] as const;

export const armColour = (index: number): string => ARM_COLOURS[index % ARM_COLOURS.length] as string;

export const TIMELINE_METRICS = {
  joined: "Participants joined",
  impressions: "Impressions",
  feed_clicks: "Feed clicks",
  plays: "Plays",
  completions: "Completions",
  likes: "Likes",
} as const;
export type TimelineMetric = keyof typeof TIMELINE_METRICS;

/** What "nothing yet" reads as per metric, after the arm's name: "Arm 3: no plays yet". */
export const TIMELINE_NONE: Record<TimelineMetric, string> = {
  joined: "no participants yet",
  impressions: "no impressions yet",
  feed_clicks: "no feed clicks yet",
  plays: "no plays yet",
  completions: "no completions yet",
  likes: "no likes yet",
};

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
