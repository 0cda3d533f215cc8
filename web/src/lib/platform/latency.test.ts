import { afterEach, describe, expect, it, vi } from "vitest";
import { afterPaint, latencyMs } from "./latency.ts";

describe("latency_ms of HOME_FEED and RECOMMENDATIONS", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("is the whole ms from asking to the cards shown", () => {
    expect(latencyMs(1000.2, 1412.7)).toBe(413);
  });

  it("stays within the contract's 0..600000 when the readings are odd", () => {
    expect(latencyMs(50, 40)).toBe(0);
    expect(latencyMs(0, 10_000_000)).toBe(600_000);
  });

  it("counts the cards shown only after the frame that paints them", () => {
    vi.useFakeTimers();
    const frames: (() => void)[] = [];
    vi.stubGlobal("requestAnimationFrame", (cb: () => void) => frames.push(cb));
    const shown = vi.fn();
    afterPaint(shown);
    vi.advanceTimersByTime(10);
    expect(shown).not.toHaveBeenCalled();
    for (const frame of frames) frame();
    vi.advanceTimersByTime(0);
    expect(shown).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000);
    expect(shown).toHaveBeenCalledTimes(1);
  });

  it("counts them shown at once when the page is left before the frame, so the event goes in the last flush", () => {
    vi.useFakeTimers();
    vi.stubGlobal("requestAnimationFrame", () => 0);
    let leave: (() => void) | undefined;
    const off = vi.fn();
    const shown = vi.fn();
    afterPaint(shown, (hook) => {
      leave = hook;
      return off;
    });
    leave?.();
    expect(shown).toHaveBeenCalledTimes(1);
    expect(off).toHaveBeenCalled();
    vi.advanceTimersByTime(5000);
    expect(shown).toHaveBeenCalledTimes(1);
  });

  it("counts them shown after a timer when no frame comes (a hidden tab)", () => {
    vi.useFakeTimers();
    vi.stubGlobal("requestAnimationFrame", () => 0);
    const shown = vi.fn();
    afterPaint(shown);
    vi.advanceTimersByTime(1000);
    expect(shown).toHaveBeenCalledTimes(1);
  });
});
