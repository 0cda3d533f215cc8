import { describe, expect, it } from "vitest";
import type { GeneratorResult } from "./protocol.ts";
import { exitCodeOf, joinLimitMessage, reportLines, summarise } from "./summary.ts";

const result = (over: Partial<GeneratorResult["counters"]> = {}): GeneratorResult => ({
  counters: {
    elapsedS: 10,
    joined: 20,
    requests: 1000,
    errors5xx: 0,
    errors429: 0,
    errors4xx: 0,
    errorsNetwork: 0,
    batches: 40,
    eventsAcknowledged: 800,
    eventsRejected: 0,
    ...over,
  },
  seconds: 10,
  latency: { "GET /feed": { p50: 4, p95: 9, p99: 12.5, count: 100 } },
  lag: { p50: 20, p99: 80, samples: 10, timeouts: 0 },
  examples: [],
});

describe("the load summary", () => {
  it("holds the pinned fields, in order, with the missing events and the rate", () => {
    const s = summarise(20, result(), 800, { stored: 798, error: null });
    expect(Object.keys(s).slice(0, 9)).toEqual([
      "participants",
      "requests",
      "errors_5xx",
      "errors_429",
      "events_acknowledged",
      "events_stored",
      "events_missing",
      "latency_ms",
      "lag_ms_p99",
    ]);
    expect(s).toMatchObject({
      participants: 20,
      events_acknowledged: 800,
      events_stored: 798,
      events_missing: 2,
      latency_ms: { "GET /feed": { p50: 4, p95: 9, p99: 12.5 } },
      lag_ms_p99: 80,
      requests_per_s: 100,
    });
    expect(exitCodeOf(s)).toBe(1);
  });

  it("exits 0 only when nothing is missing and every request was answered without an error", () => {
    expect(exitCodeOf(summarise(20, result(), 800, { stored: 800, error: null }))).toBe(0);
    for (const bad of [{ errors5xx: 1 }, { errors429: 1 }, { errors4xx: 1 }, { errorsNetwork: 1 }])
      expect(
        exitCodeOf(summarise(20, result(bad), 800, { stored: 800, error: null })),
        JSON.stringify(bad),
      ).toBe(1);
  });

  it("reports in words what failed, and why the export could not be read", () => {
    const check = { stored: 0, error: "the export did not answer: connect ECONNREFUSED" };
    const s = summarise(20, result({ errorsNetwork: 12 }), 800, check);
    const lines = reportLines(s, result({ errorsNetwork: 12 }), check);
    expect(lines).toContain(
      "  The events export could not be read: the export did not answer: connect ECONNREFUSED",
    );
    expect(lines.at(-1)).toBe(
      "Result: FAILED: 800 acknowledged events missing from the export; 12 requests without an answer",
    );
    expect(lines.find((l) => l.includes("GET /feed"))).toMatch(/4\.0\s+9\.0\s+12\.5\s+100$/);
  });

  it("names the setting and the value a load test needs when joins are limited", () => {
    const text = joinLimitMessage(200, 120, "42");
    expect(text).toContain("after 120 of 200 participants had joined (Retry-After: 42 s)");
    expect(text).toContain("FEEDLAB_JOIN_RATE_LIMIT=200 or more (or 0: no limit)");
  });
});
