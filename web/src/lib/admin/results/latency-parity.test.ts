import { describe, expect, it } from "vitest";
import { basisOf, latencyGaps, requestsCell } from "./latency-parity.ts";

const surface = (p50: number | null, requests = 10, participants = 5) => ({
  p50,
  p95: p50,
  requests: p50 === null ? 0 : requests,
  participants: p50 === null ? 0 : participants,
});
const arm = (name: string, feed: number | null, related: number | null = null, participants = 5) => ({
  name,
  latency_ms: { feed: surface(feed, 10, participants), related: surface(related, 10, participants) },
});

describe("latency gaps between arms", () => {
  it("names the slowest and fastest arm, the gap, and what each rests on when their p50 differ by more than 100 ms", () => {
    expect(latencyGaps([arm("External", 432.5, 12.5), arm("Built-in", 22.5, 17.5)])).toEqual([
      {
        surface: "Feed",
        slow: { name: "External", p50: 432.5, requests: 10, participants: 5 },
        fast: { name: "Built-in", p50: 22.5, requests: 10, participants: 5 },
        gap: 410,
        tooFew: false,
      },
    ]);
  });

  it("says a gap is too few to tell when either arm rests on fewer than 5 participants", () => {
    const [gap] = latencyGaps([arm("External", 1830, null, 1), arm("Built-in", 17, null, 12)]);
    expect(gap?.tooFew).toBe(true);
  });

  it("warns of nothing when arms are within 100 ms, or only one arm reported", () => {
    expect(latencyGaps([arm("A", 712.5, 705), arm("B", 722.5, 805)])).toEqual([]);
    expect(latencyGaps([arm("A", 900), arm("B", null)])).toEqual([]);
  });
});

describe("what a latency rests on, in words", () => {
  it("counts requests and participants, one and many", () => {
    expect(basisOf({ requests: 3, participants: 1 }, "Feed")).toBe("3 feed requests from 1 participant");
    expect(basisOf({ requests: 1, participants: 1 }, "Related videos")).toBe(
      "1 related-videos request from 1 participant",
    );
    expect(requestsCell({ requests: 1200, participants: 40 })).toBe("1,200 from 40 participants");
  });
});
