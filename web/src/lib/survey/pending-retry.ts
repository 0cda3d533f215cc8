// When the session's first pending-survey check is tried again. Until that check has answered, the
// survey gate shows no page (a forced pre survey must come before the feed: spec, Participant:
// surveys), so a failure is retried rather than read as "nothing due".
import { isApiError } from "../participant-api.ts";

/** The waits before the retries of the first check: 1, 2, 4 and 8 s after the failures before them. */
const FIRST_CHECK_RETRY_MS = [1000, 2000, 4000, 8000] as const;

/** After those, the check goes on in the background at this interval (the participant may also ask at once). */
const BACKGROUND_RETRY_MS = 10_000;

/** Failed attempts in a row (the first try and its four retries) after which the participant is told. */
export const FAILURES_BEFORE_NOTICE = FIRST_CHECK_RETRY_MS.length + 1;

/** The wait after the `failures`-th failed attempt in a row (1-based) before the next attempt. */
export function retryDelayMs(failures: number): number {
  return FIRST_CHECK_RETRY_MS[failures - 1] ?? BACKGROUND_RETRY_MS;
}

/** Statuses that ask to be asked again later: a timeout, too early, too many requests. */
const LATER = new Set([408, 425, 429]);

/**
 * Whether an attempt that failed this way is worth repeating. A 4xx is the server's answer
 * (`consent_required`, `experiment_paused`, `not_found`, ...): repeating it cannot change it, and the
 * page's own loader handles those states. Everything else is not an answer: the server was not
 * reached (status 0), it failed (5xx), it asked to be asked later (408, 425, 429), or what came back
 * could not be read.
 */
export function isRetriable(error: unknown): boolean {
  if (!isApiError(error)) return true;
  return !(error.status >= 400 && error.status < 500) || LATER.has(error.status);
}
