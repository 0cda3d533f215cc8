import type { Completion } from "@feedlab/schemas";
import { conditionsReached } from "../study/completion.ts";
import type { Random } from "../system/random.ts";
import type { BehaviourOptions } from "./options.ts";

/**
 * How many sessions (visits) a participant comes for, so that the completion rule is reached (api.md,
 * Study flow) with `sessionMinutes` on the pages each time. It asks the server's own rule
 * (`conditionsReached`) rather than restating it. No rule, or a rule with neither `after_sessions` nor
 * `after_feed_minutes` (the study then ends when the researcher completes it), needs one session; the
 * count never passes `maxSessions`.
 */
export function sessionsNeeded(completion: Completion | null, options: BehaviourOptions): number {
  if (completion === null) return 1;
  if (completion.after_sessions === undefined && completion.after_feed_minutes === undefined) return 1;
  for (let n = 1; n < options.maxSessions; n++) {
    const progress = { sessions: n, feed_minutes: n * options.sessionMinutes };
    if (conditionsReached(completion, progress, "running")) return n;
  }
  return options.maxSessions;
}

/**
 * Seconds between the end of one session and the start of the next: log-normal around the median (most
 * come back soon, a few much later), cut to [min, max]. Any gap starts a new session, since the client
 * starts one whenever browser session storage is new (the spec, States).
 */
export function sessionGap(random: Random, options: BehaviourOptions): number {
  const { min, median, max } = options.sessionGapSeconds;
  if (median <= 0) return min;
  return Math.round(Math.min(max, Math.max(min, random.logNormal(median, 1))));
}

/** A schedule's window for the next session, in epoch ms (as `/me`'s `next_session` gives it). */
export interface SessionWindow {
  readonly opensAt: number;
  readonly closesAt: number;
}

/**
 * After the window opens, how long a participant still waits at least: the server and the participant
 * may not read the same clock, and a session begun before its window never counts.
 */
export const WINDOW_MARGIN_MS = 1000;
/** The most a participant's return is spread past the margin (and never past a fifth of the window). */
const WINDOW_JITTER_MS = 2000;

/**
 * Milliseconds from `now` until a participant begins the session a schedule's window allows (api.md
 * "Longitudinal studies (wave 4)"): the window's opening, plus WINDOW_MARGIN_MS, plus a seeded jitter
 * so that participants do not all come back at once; always in the window's first half, so the session
 * begins well before it closes. 0 once that moment has passed (even past the close: the server says
 * whether the participant lapsed).
 */
export function windowWait(random: Random, window: SessionWindow, now: number): number {
  const length = Math.max(0, window.closesAt - window.opensAt);
  const jitter = random.uniform(0, Math.min(WINDOW_JITTER_MS, length / 5));
  const at = Math.min(window.opensAt + WINDOW_MARGIN_MS + jitter, window.opensAt + length / 2);
  return Math.max(0, Math.ceil(at - now));
}
