/**
 * Latency parity (api.md, "Data quality and validity"): when a list's cards count as shown, and the
 * `latency_ms` HOME_FEED and RECOMMENDATIONS carry (docs/events.md).
 */

/** The largest `latency_ms` the contract accepts (schemas/src/events/payloads.ts). */
const LATENCY_MAX_MS = 600_000;

/** A latency as the payloads carry it: whole ms between two `performance.now()` readings, in range. */
export function latencyMs(asked: number, shown: number): number {
  return Math.min(LATENCY_MAX_MS, Math.max(0, Math.round(shown - asked)));
}

/** How long a hidden tab's list waits for a frame before it counts as shown anyway. */
const FRAME_FALLBACK_MS = 1000;

/**
 * Calls `shown` once what was rendered before this call is on screen: after the next animation frame
 * (the frame that paints it) and the task after it. A hidden tab paints no frame: then, or without
 * `requestAnimationFrame`, a timer stands in. Leaving the page first (`onLeave`, the tracking core's
 * exit hooks, before its last flush) calls it at once, so the event is never lost.
 */
export function afterPaint(shown: () => void, onLeave?: (hook: () => void) => () => void): void {
  let done = false;
  let off: (() => void) | undefined;
  const once = () => {
    if (done) return;
    done = true;
    off?.();
    shown();
  };
  off = onLeave?.(once);
  const hidden = typeof document !== "undefined" && document.visibilityState === "hidden";
  if (typeof requestAnimationFrame !== "function" || hidden) {
    setTimeout(once, 0);
    return;
  }
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, FRAME_FALLBACK_MS);
}
