/**
 * How long a survey form has been open: the response's `duration_ms` (api.md, Data quality and
 * validity), from the form shown to the answers sent. A monotonic clock (`performance.now`), so a change
 * of the computer's time does not bend it; wall time, so a tab left in the background counts.
 */

/** The most `duration_ms` takes (a day): a form left open longer is sent as open this long. */
export const MAX_DURATION_MS = 86_400_000;

export interface FormTimer {
  /** Whole milliseconds since the timer started, at most `MAX_DURATION_MS`. */
  elapsedMs(): number;
}

/** Starts timing now; `now` is the clock in milliseconds (tests pass their own). */
export function startFormTimer(now: () => number = () => performance.now()): FormTimer {
  const start = now();
  return {
    elapsedMs: () => Math.min(MAX_DURATION_MS, Math.max(0, Math.round(now() - start))),
  };
}
