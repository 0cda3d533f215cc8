import { describe, expect, it } from "vitest";
import { latencyGaps } from "./latency-parity.ts";

const arm = (name: string, feed: number | null, related: number | null = null) => ({
  name,
  latency_ms: { feed: { p50: feed, p95: feed }, related: { p50: related, p95: related } },
});

describe("latency gaps between arms", () => {
  it("names the slowest and fastest arm and the gap when their p50 differ by more than 100 ms", () => {
    expect(latencyGaps([arm("External", 432.5, 12.5), arm("Built-in", 22.5, 17.5)])).toEqual([
      {
        surface: "Feed",
        slow: { name: "External", p50: 432.5 },
        fast: { name: "Built-in", p50: 22.5 },
        gap: 410,
      },
    ]);
  });

  it("warns of nothing when arms are within 100 ms, or only one arm reported", () => {
    expect(latencyGaps([arm("A", 712.5, 705), arm("B", 722.5, 805)])).toEqual([]);
    expect(latencyGaps([arm("A", 900), arm("B", null)])).toEqual([]);
  });
});
