import { LATENCY_WARNING_MS } from "@feedlab/schemas/http/latency.ts";
import type { GroupStats } from "../../types.ts";

export { LATENCY_WARNING_MS };

/** The two surfaces whose latency `/stats` reports, with their names on the page. */
export const LATENCY_SURFACES = [
  { key: "feed", label: "Feed" },
  { key: "related", label: "Related videos" },
] as const;

/** Arms whose median latency on a surface differs by more than the threshold. */
export interface LatencyGap {
  readonly surface: (typeof LATENCY_SURFACES)[number]["label"];
  readonly slow: { readonly name: string; readonly p50: number };
  readonly fast: { readonly name: string; readonly p50: number };
  /** slow.p50 - fast.p50, in ms. */
  readonly gap: number;
}

/**
 * Latency parity (docs/results.md): per surface, the slowest and fastest arm by p50 when they differ
 * by more than `LATENCY_WARNING_MS`. Arms without reported latencies on a surface are not compared.
 */
export function latencyGaps(groups: readonly Pick<GroupStats, "name" | "latency_ms">[]): LatencyGap[] {
  const gaps: LatencyGap[] = [];
  for (const { key, label } of LATENCY_SURFACES) {
    const arms = groups.flatMap((g) => {
      const p50 = g.latency_ms?.[key].p50;
      return p50 === null || p50 === undefined ? [] : [{ name: g.name, p50 }];
    });
    if (arms.length < 2) continue;
    const sorted = [...arms].sort((a, b) => a.p50 - b.p50);
    const fast = sorted[0];
    const slow = sorted[sorted.length - 1];
    if (fast && slow && slow.p50 - fast.p50 > LATENCY_WARNING_MS)
      gaps.push({ surface: label, slow, fast, gap: slow.p50 - fast.p50 });
  }
  return gaps;
}

/** A latency in ms as the table shows it. */
export const formatMs = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? "—" : `${Math.round(ms)} ms`;
