import { LATENCY_WARNING_MS } from "@feedlab/schemas/http/latency.ts";
import type { GroupStats } from "../../types.ts";

export { LATENCY_WARNING_MS };

/** The two surfaces whose latency `/stats` reports, with their names on the page. */
export const LATENCY_SURFACES = [
  { key: "feed", label: "Feed" },
  { key: "related", label: "Related videos" },
] as const;

/**
 * Fewer analysed participants than this in either compared arm and a gap says little: each
 * participant's network and device weigh on their arm's latencies as much as the arm does.
 */
const LATENCY_FEW_PARTICIPANTS = 5;

/** One arm of a latency comparison: its median, and the page loads and participants it rests on. */
export interface LatencyArm {
  readonly name: string;
  readonly p50: number;
  readonly requests: number;
  readonly participants: number;
}

/** Arms whose median latency on a surface differs by more than the threshold. */
export interface LatencyGap {
  readonly surface: (typeof LATENCY_SURFACES)[number]["label"];
  readonly slow: LatencyArm;
  readonly fast: LatencyArm;
  /** slow.p50 - fast.p50, in ms. */
  readonly gap: number;
  /** Either arm rests on fewer than `LATENCY_FEW_PARTICIPANTS` participants: too few to tell. */
  readonly tooFew: boolean;
}

/**
 * Latency parity (docs/results.md): per surface, the slowest and fastest arm by p50 when they differ
 * by more than `LATENCY_WARNING_MS`. Arms without reported latencies on a surface are not compared.
 */
export function latencyGaps(groups: readonly Pick<GroupStats, "name" | "latency_ms">[]): LatencyGap[] {
  const gaps: LatencyGap[] = [];
  for (const { key, label } of LATENCY_SURFACES) {
    const arms = groups.flatMap((g) => {
      const surface = g.latency_ms?.[key];
      const p50 = surface?.p50;
      return p50 === null || p50 === undefined
        ? []
        : [{ name: g.name, p50, requests: surface?.requests ?? 0, participants: surface?.participants ?? 0 }];
    });
    if (arms.length < 2) continue;
    const sorted = [...arms].sort((a, b) => a.p50 - b.p50);
    const fast = sorted[0];
    const slow = sorted[sorted.length - 1];
    if (fast && slow && slow.p50 - fast.p50 > LATENCY_WARNING_MS)
      gaps.push({
        surface: label,
        slow,
        fast,
        gap: slow.p50 - fast.p50,
        tooFew: Math.min(slow.participants, fast.participants) < LATENCY_FEW_PARTICIPANTS,
      });
  }
  return gaps;
}

/** A latency in ms as the table shows it. */
export const formatMs = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? "—" : `${Math.round(ms)} ms`;

const counted = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * What an arm's latency rests on, in words: "3 feed requests from 1 participant". `surface` as
 * `LATENCY_SURFACES` names it.
 */
export function basisOf(arm: Pick<LatencyArm, "requests" | "participants">, surface: string): string {
  const what = surface === "Feed" ? "feed" : "related-videos";
  return `${counted(arm.requests, `${what} request`, `${what} requests`)} from ${counted(arm.participants, "participant", "participants")}`;
}

/** The table's cell of what a surface's latency rests on: "3 from 1 participant". */
export const requestsCell = (arm: Pick<LatencyArm, "requests" | "participants">): string =>
  `${arm.requests.toLocaleString()} from ${counted(arm.participants, "participant", "participants")}`;
