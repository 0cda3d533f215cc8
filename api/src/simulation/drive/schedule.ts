import { setTimeout as sleep } from "node:timers/promises";
import type { Completion, Me, Schedule } from "@feedlab/schemas";
import { compressedSchedule, lastSession } from "../../study/schedule.ts";
import type { ParticipantModel } from "../behaviour.ts";
import type { JourneyRecord } from "./journey.ts";

/**
 * How a simulated participant follows a longitudinal study's schedule (api.md "Longitudinal studies
 * (wave 4)"). The server compresses the schedule for simulated participants (study/schedule.ts
 * `compressedSchedule`) and gives each window in `/me`'s `next_session`; the participant waits for it to
 * open, then begins a new session (a session begun before its window never counts).
 */

/**
 * Sessions a simulated participant comes for: those the completion rule needs, and with a schedule at
 * least up to the session the study ends with (its last window when the rule sets no `after_sessions`),
 * so that a dry run follows every window; never more than the model's `maxSessions`.
 */
export function plannedSessions(
  model: ParticipantModel,
  design: { readonly completion: Completion | null; readonly schedule?: Schedule },
): number {
  const needed = model.sessionsNeeded(design.completion);
  const last = lastSession(design.schedule ?? [], design.completion?.after_sessions) ?? 1;
  return Math.min(model.options.maxSessions, Math.max(needed, last));
}

const HOUR_MS = 3_600_000;
/** From a new visit's start until its session has begun (its first batch reached the server), at most. */
const RETURN_MS = 2000;

/**
 * When visit `n`, started at `startedAt`, ends at the latest so that the participant can come back in
 * the next session's window: the middle of that window (compressed as the server compresses it for
 * simulated participants), less the time a return takes, and never before the window opens; the run's
 * `deadline` when no window follows. A visit in the browser takes longer than a compressed window of
 * seconds, and the window counts from the visit's beginning.
 */
export function leaveBy(
  schedule: Schedule | undefined,
  n: number,
  startedAt: number,
  deadline: number,
): number {
  const w = compressedSchedule(schedule ?? []).find((x) => x.session === n + 1);
  if (w === undefined) return deadline;
  const middle = ((w.opens_after_hours + w.closes_after_hours) / 2) * HOUR_MS - RETURN_MS;
  return Math.min(deadline, startedAt + Math.max(middle, w.opens_after_hours * HOUR_MS));
}

/** The time a participant waits by; tests pass their own. */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_TIME: WaitClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

/** What a participant does about the next window. */
export interface WindowOutcome {
  /** False when the participant stops: lapsed, or the window opens past the deadline. */
  readonly going: boolean;
  /** When the window closes (epoch ms), or null without one. */
  readonly closesAt: number | null;
}

/**
 * Before session `n`: reads `/me` (after the participant's acknowledged events, so the sessions so far
 * count) and, while the schedule has a window to use, waits until the participant's model says to come
 * back in it. A participant `/me` says lapsed, or whose window closed before they could come back, stops
 * (`lapsedAt`: a session begun after the close would lapse them); one whose window opens past `deadline`
 * stops at once rather than waiting for nothing (`outOfTime`, `beyondBudget`). A `/me` that fails says
 * nothing: the visit meets the failure and reports it.
 */
export async function awaitWindow(
  record: JourneyRecord,
  model: ParticipantModel,
  deadline: number,
  readMe: () => Promise<Me | null>,
  clock: WaitClock = REAL_TIME,
): Promise<WindowOutcome> {
  const me = await readMe();
  if (me === null) return { going: true, closesAt: null };
  if (me.status === "lapsed") {
    record.lapsedAt ??= me.progress.sessions + 1;
    return { going: false, closesAt: null };
  }
  const next = me.next_session;
  if (next === null) return { going: true, closesAt: null };
  const window = { opensAt: Date.parse(next.opens_at), closesAt: Date.parse(next.closes_at) };
  if (clock.now() >= window.closesAt) {
    record.lapsedAt ??= next.session;
    return { going: false, closesAt: window.closesAt };
  }
  const waitMs = model.windowWait(window, clock.now());
  if (clock.now() + waitMs > deadline) {
    record.outOfTime = true;
    record.beyondBudget = next.session;
    return { going: false, closesAt: window.closesAt };
  }
  await clock.sleep(waitMs);
  return { going: true, closesAt: window.closesAt };
}
