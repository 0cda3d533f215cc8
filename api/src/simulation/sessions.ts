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
