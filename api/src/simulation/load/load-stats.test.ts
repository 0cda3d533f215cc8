import { describe, expect, it } from "vitest";
import { LoadStats, percentile, percentilesOf } from "./load-stats.ts";

describe("percentiles", () => {
  it("answers the nearest rank: the value at or below which p percent of the values lie", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 95)).toBe(95);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });

  it("sorts the values itself and rounds to a tenth of a millisecond", () => {
    expect(percentilesOf([3.04, 1, 2, 10.06])).toEqual({ p50: 2, p95: 10.1, p99: 10.1, count: 4 });
    expect(percentilesOf([])).toEqual({ p50: 0, p95: 0, p99: 0, count: 0 });
  });
});

describe("load stats", () => {
  it("times answered requests by endpoint and counts 5xx, 429, other 4xx and unanswered apart", () => {
    const stats = new LoadStats();
    stats.observe("GET /feed", 200, 10);
    stats.observe("GET /feed", 200, 30);
    stats.observe("POST /api/v1/events", 202, 5);
    stats.observe("POST /api/v1/events", 503, 1);
    stats.observe("POST /api/v1/participants/join", 429, 1);
    stats.observe("GET /api/v1/me", 403, 1);
    stats.observe("GET /feed", 0, 15_000);
    stats.observe("GET /feed", 0, 15_000);
    const r = stats.result();
    expect(r.counters).toMatchObject({
      requests: 8,
      errors5xx: 1,
      errors429: 1,
      errors4xx: 1,
      errorsNetwork: 2,
    });
    expect(Object.keys(r.latency)).toEqual(["GET /feed", "POST /api/v1/events"]);
    expect(r.latency["GET /feed"]).toEqual({ p50: 10, p95: 30, p99: 30, count: 2 });
    expect(r.examples).toEqual([
      "POST /api/v1/events: HTTP 503",
      "POST /api/v1/participants/join: HTTP 429",
      "GET /api/v1/me: HTTP 403",
      "GET /feed: no answer (2 times)",
    ]);
  });

  it("hands each acknowledged id over once and sums batches, refusals and lag samples", () => {
    const stats = new LoadStats();
    stats.batch(["a", "b"], 0);
    stats.batch(["c"], 2);
    expect(stats.takeAcknowledged()).toEqual(["a", "b", "c"]);
    expect(stats.takeAcknowledged()).toEqual([]);
    stats.lag(20, true);
    stats.lag(2100, false);
    const r = stats.result();
    expect(r.counters).toMatchObject({ batches: 2, eventsAcknowledged: 3, eventsRejected: 2 });
    expect(r.lag).toEqual({ p50: 20, p99: 2100, samples: 2, timeouts: 1 });
  });
});
