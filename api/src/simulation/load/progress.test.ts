import { describe, expect, it } from "vitest";
import { scheduleOf } from "./generator.ts";
import { progressLine } from "./progress.ts";

describe("the progress line", () => {
  it("shows time, joins, requests and their rate, batches, events and only the errors there are", () => {
    const counters = {
      elapsedS: 12.4,
      joined: 200,
      requests: 12_345,
      errors5xx: 0,
      errors429: 0,
      errors4xx: 0,
      errorsNetwork: 3,
      batches: 480,
      eventsAcknowledged: 9876,
      eventsRejected: 0,
    };
    expect(progressLine(counters, 200, 60)).toBe(
      "12/60 s | 200/200 joined | 12,345 requests (996/s) | 480 batches, 9,876 events acknowledged | errors: 3 no answer",
    );
    expect(progressLine({ ...counters, errorsNetwork: 0 }, 200, 60)).toMatch(/\| no errors$/);
  });
});

describe("arrivals and departures", () => {
  it("spreads arrivals over the first 5 s, or a quarter of a shorter run, and gives each participant as long", () => {
    expect([0, 1, 2, 3].map((i) => scheduleOf(i, 4, 60).arriveMs)).toEqual([0, 1250, 2500, 3750]);
    expect([0, 3].map((i) => scheduleOf(i, 4, 60).leaveMs)).toEqual([55_000, 58_750]);
    expect(scheduleOf(1, 2, 4)).toEqual({ arriveMs: 500, leaveMs: 3500 });
    expect(scheduleOf(0, 1, 60)).toEqual({ arriveMs: 0, leaveMs: 60_000 });
  });
});
