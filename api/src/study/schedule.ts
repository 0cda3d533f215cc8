import type { Completion, Reminders, Schedule, ScheduleWindow } from "@feedlab/schemas";

/**
 * Longitudinal studies (api.md "Longitudinal studies (wave 4)"): each later session has a window that
 * opens and closes a set number of hours after the previous counted session began (its first event's
 * arrival at the server). A session begun before its window is stored but never counts; a window
 * that closes unused makes the participant lapsed, for good. Sessions past the schedule's last window
 * count by the completion rule's least gap, as without a schedule.
 */

const HOUR_MS = 3_600_000;

/**
 * How long after a window closes a lapse is declared: events reach the read model of sessions a few
 * seconds after they reach the server (the projector), so a session begun just before the close is
 * seen before its participant is declared lapsed. Lapses still happen within 60 s of their time.
 */
export const LAPSE_GRACE_MS = 20_000;

/** A session of the participant that the server received an event of, and when the first arrived. */
export interface BegunSession {
  readonly session_id: string;
  readonly began: number;
}

/** A window in time: `session`'s, from the previous counted session's beginning. */
export interface OpenWindow {
  readonly session: number;
  readonly opens_at: number;
  readonly closes_at: number;
}

/** Where a participant stands on the schedule. */
export interface ScheduleState {
  /** Sessions that count, in order: the first session with an event, then each begun in its window. */
  readonly counted: readonly BegunSession[];
  /** The window that closed unused (final), or null. */
  readonly lapsed: OpenWindow | null;
  /** The next window while it is not used (and the participant has not lapsed), or null. */
  readonly next: OpenWindow | null;
  /**
   * Whether the `current` session counts (or, before its first event arrives, would count were one
   * to arrive now): false before the next window. True without a `current` session.
   */
  readonly currentCounts: boolean;
  /**
   * Whether the pages are open to the `current` session: false when it began (or would begin now)
   * before the next window, or the participant lapsed. A session begun early never counts, even once
   * the window opens: the participant starts a new one.
   */
  readonly sessionOpen: boolean;
  /** The visit the `current` session makes (as `participantProgress`' visit). */
  readonly visit: number;
}

/**
 * The schedule as it applies to a simulated participant (a dry run, `feedlab simulate`): time
 * compressed so that an hour of the schedule lasts a second, except that every window stays at least
 * 10 s long (a pilot's schedule of minutes is compressed less, or not at all). The server applies it
 * to simulated participants; they read the windows from `/me`'s `next_session`.
 */
export function compressedSchedule(schedule: Schedule): Schedule {
  if (schedule.length === 0) return schedule;
  const shortestS = Math.min(...schedule.map((w) => (w.closes_after_hours - w.opens_after_hours) * 3600));
  const factor = Math.max(1, Math.min(3600, shortestS / 10));
  if (factor === 1) return schedule;
  return schedule.map((w) => ({
    session: w.session,
    opens_after_hours: w.opens_after_hours / factor,
    closes_after_hours: w.closes_after_hours / factor,
  }));
}

/** The schedule a participant follows: compressed for simulated ones. */
const scheduleFor = (schedule: Schedule, simulated: boolean): Schedule =>
  simulated ? compressedSchedule(schedule) : schedule;

const windowOf = (schedule: Schedule, session: number): ScheduleWindow | undefined =>
  schedule.find((w) => w.session === session);

/**
 * Where a participant stands (ScheduleState), from their sessions with an event in order of their
 * beginning. `gapMs`: the completion rule's least gap, for sessions past the schedule; `last`: the
 * session the study ends with (completion's `after_sessions`, else the schedule's last window), past
 * which no window is waited for; `now` decides a lapse (after LAPSE_GRACE_MS) and, for a `current`
 * session not seen yet, whether it would count.
 */
export function scheduleState(
  schedule: Schedule,
  sessions: readonly BegunSession[],
  options: { gapMs: number; last: number | null; now: number; current?: string },
): ScheduleState {
  const counted: BegunSession[] = [];
  let lapsed: OpenWindow | null = null;
  let current: { counts: boolean; early: boolean; visit: number } | null = null;
  const windowAfter = (previous: BegunSession): OpenWindow | null => {
    const session = counted.length + 1;
    const w = windowOf(schedule, session);
    if (w === undefined) return null;
    return {
      session,
      opens_at: previous.began + w.opens_after_hours * HOUR_MS,
      closes_at: previous.began + w.closes_after_hours * HOUR_MS,
    };
  };
  for (const s of sessions) {
    const previous = counted.at(-1);
    const w = previous === undefined ? null : windowAfter(previous);
    if (w !== null && s.began >= w.closes_at) {
      lapsed = w;
      break;
    }
    const early = w !== null && s.began < w.opens_at;
    const counts =
      previous === undefined || (w === null ? s.began - previous.began >= options.gapMs : !early);
    if (counts) counted.push(s);
    if (s.session_id === options.current) current = { counts, early, visit: counted.length };
  }
  const previous = counted.at(-1);
  const done = options.last !== null && counted.length >= options.last;
  let next: OpenWindow | null = null;
  if (lapsed === null && previous !== undefined && !done) {
    const w = windowAfter(previous);
    if (w !== null && options.now >= w.closes_at + LAPSE_GRACE_MS) lapsed = w;
    else next = w;
  }
  if (current === null && options.current !== undefined) {
    // The current session has no event yet: what it would make were one to arrive now.
    let counts: boolean;
    let early = false;
    if (previous === undefined) counts = true;
    else if (lapsed !== null) counts = false;
    else if (next !== null) {
      early = options.now < next.opens_at;
      counts = !early && options.now < next.closes_at;
    } else counts = options.now - previous.began >= options.gapMs;
    current = { counts, early, visit: counted.length + (counts ? 1 : 0) };
  }
  return {
    counted,
    lapsed,
    next,
    currentCounts: current?.counts ?? true,
    sessionOpen: lapsed === null && !(current?.early ?? false),
    visit: current?.visit ?? counted.length,
  };
}

/**
 * Where a participant stands under an experiment's schedule and completion rule: `scheduleState` with
 * the rule's least gap and last session, the schedule compressed for a simulated participant. What
 * `/me`, the keeper and the attrition read.
 */
export function participantOnSchedule(
  schedule: Schedule,
  completion: Pick<Completion, "min_session_gap_minutes" | "after_sessions"> | null,
  sessions: readonly BegunSession[],
  options: { now: number; simulated: boolean; current?: string },
): ScheduleState {
  return scheduleState(scheduleFor(schedule, options.simulated), sessions, {
    gapMs: (completion?.min_session_gap_minutes ?? 0) * 60_000,
    last: lastSession(schedule, completion?.after_sessions),
    now: options.now,
    ...(options.current === undefined ? {} : { current: options.current }),
  });
}

/** The session the study ends with: completion's `after_sessions`, else the schedule's last window. */
export const lastSession = (schedule: Schedule, afterSessions: number | undefined): number | null =>
  afterSessions ?? (schedule.length === 0 ? null : Math.max(...schedule.map((w) => w.session)));

/** A problem with a schedule or reminders, as the experiment PATCH reports it (422). */
export interface ScheduleProblem {
  readonly code: "invalid_schedule" | "invalid_reminders";
  readonly field: string;
  readonly message: string;
}

/**
 * Checks what the JSON schema cannot: windows for sessions 2, 3, ... in order, each closing after it
 * opens; a reminder before the close shorter than every window.
 */
export function scheduleProblems(schedule: Schedule, reminders: Reminders | null): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  schedule.forEach((w, i) => {
    if (w.session !== i + 2)
      problems.push({
        code: "invalid_schedule",
        field: `schedule[${i}].session`,
        message: `Window ${i + 1} must be for session ${i + 2}: windows are listed for sessions 2, 3, ... in order.`,
      });
    if (w.closes_after_hours <= w.opens_after_hours)
      problems.push({
        code: "invalid_schedule",
        field: `schedule[${i}].closes_after_hours`,
        message: `Session ${w.session}'s window must close after it opens (${w.opens_after_hours} h).`,
      });
  });
  const before = reminders?.before_close_hours;
  if (before !== undefined) {
    const tooLong = schedule.find((w) => before >= w.closes_after_hours - w.opens_after_hours);
    if (tooLong)
      problems.push({
        code: "invalid_reminders",
        field: "reminders.before_close_hours",
        message: `The reminder before the close (${before} h) must come after the window opens: session ${tooLong.session}'s window is ${Math.round((tooLong.closes_after_hours - tooLong.opens_after_hours) * 100) / 100} h long.`,
      });
  }
  return problems;
}
