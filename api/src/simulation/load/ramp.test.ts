import { describe, expect, it } from "vitest";
import { judgeLevel, levelHeld, nextLevel, RAMP_DEFAULTS, type RampLevel } from "./ramp.ts";
import type { LoadSummary } from "./summary.ts";

const summary = (over: Partial<LoadSummary> = {}): LoadSummary => ({
  participants: 40,
  requests: 1000,
  errors_5xx: 0,
  errors_429: 0,
  events_acknowledged: 500,
  events_stored: 500,
  events_missing: 0,
  latency_ms: {
    "POST /api/v1/events": { p50: 3, p95: 20, p99: 40 },
    "GET /feed": { p50: 5, p95: 60, p99: 120 },
  },
  lag_ms_p99: 80,
  duration_s: 30,
  requests_per_s: 33.3,
  errors_4xx: 0,
  errors_network: 0,
  events_rejected: 0,
  requests_by_endpoint: {},
  ...over,
});

/** A level of `n` participants, held or missed. */
const level = (n: number, held: boolean): RampLevel =>
  judgeLevel(
    summary({
      participants: n,
      ...(held ? {} : { latency_ms: { "GET /feed": { p50: 9, p95: 200, p99: 400 } } }),
    }),
    RAMP_DEFAULTS,
  );

describe("a ramp level", () => {
  it("is held when every endpoint's p99 is within 250 ms, nothing answered 5xx and every event is stored", () => {
    expect(judgeLevel(summary(), RAMP_DEFAULTS)).toMatchObject({
      held: true,
      p99_ms: 120,
      slowest: "GET /feed",
      missed: [],
    });
  });

  it("is missed by a p99 over the target, naming the endpoint", () => {
    const judged = judgeLevel(
      summary({ latency_ms: { "GET /feed/{id}/related": { p50: 9, p95: 180, p99: 251 } } }),
      RAMP_DEFAULTS,
    );
    expect(judged.held).toBe(false);
    expect(judged.missed).toEqual(["p99 of GET /feed/{id}/related 251 ms, over 250 ms"]);
  });

  it("is missed by one 5xx or one missing event even when fast", () => {
    expect(judgeLevel(summary({ errors_5xx: 1 }), RAMP_DEFAULTS).missed).toEqual(["1 answers 5xx"]);
    expect(judgeLevel(summary({ events_stored: 499, events_missing: 1 }), RAMP_DEFAULTS).missed).toEqual([
      "1 acknowledged events missing from the export",
    ]);
  });
});

describe("the ramp's levels", () => {
  it("start at --from and double while every level holds, up to --max", () => {
    const plan = { ...RAMP_DEFAULTS, max: 100 };
    expect(nextLevel([], plan)).toBe(10);
    expect(nextLevel([level(10, true)], plan)).toBe(20);
    expect(nextLevel([level(10, true), level(20, true), level(40, true), level(80, true)], plan)).toBe(100);
    expect(nextLevel([level(80, true), level(100, true)], plan)).toBeNull();
  });

  it("narrow twice between the last level held and the first missed, then stop", () => {
    const levels = [level(10, true), level(20, true), level(40, true), level(80, false)];
    expect(nextLevel(levels, RAMP_DEFAULTS)).toBe(60);
    levels.push(level(60, true));
    expect(nextLevel(levels, RAMP_DEFAULTS)).toBe(70);
    levels.push(level(70, false));
    expect(nextLevel(levels, RAMP_DEFAULTS)).toBeNull();
    expect(levelHeld(levels)).toBe(60);
  });

  it("stop narrowing once the gap is within 10% of the level held", () => {
    expect(nextLevel([level(100, true), level(110, false)], RAMP_DEFAULTS)).toBeNull();
  });

  it("end at once when the first level misses, holding none", () => {
    const levels = [level(10, false)];
    expect(nextLevel(levels, RAMP_DEFAULTS)).toBeNull();
    expect(levelHeld(levels)).toBeNull();
  });
});
