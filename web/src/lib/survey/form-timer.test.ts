import { describe, expect, it } from "vitest";
import { MAX_DURATION_MS, startFormTimer } from "./form-timer.ts";

describe("the survey form's timer (duration_ms)", () => {
  it("gives the whole milliseconds from the form shown to now", () => {
    let clock = 1000.2;
    const timer = startFormTimer(() => clock);
    clock = 13_345.6;
    expect(timer.elapsedMs()).toBe(12_345);
  });

  it("caps a form left open more than a day at a day, the most the API takes", () => {
    let clock = 0;
    const timer = startFormTimer(() => clock);
    clock = 2 * MAX_DURATION_MS;
    expect(timer.elapsedMs()).toBe(86_400_000);
  });

  it("never goes below 0 when the clock steps back", () => {
    let clock = 500;
    const timer = startFormTimer(() => clock);
    clock = 100;
    expect(timer.elapsedMs()).toBe(0);
  });
});
