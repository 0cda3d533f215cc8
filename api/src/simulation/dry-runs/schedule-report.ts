import type { Schedule } from "@feedlab/schemas";
import { compressedSchedule } from "../../study/schedule.ts";
import type { JourneyRecord } from "../drive/journey.ts";
import { leaveBy } from "../drive/schedule.ts";
import { WINDOW_MARGIN_MS } from "../sessions.ts";

/**
 * What a dry run says of a longitudinal study's schedule (api.md "Longitudinal studies (wave 4)"):
 * whether the schedule, as the server compresses it for simulated participants, fits in the run's
 * budget at all (known before any participant starts), and which simulated participants lapsed.
 */

/** "1 simulated participant", "3 simulated participants". */
export const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const HOUR_MS = 3_600_000;

/** "2.5 s", "45 s", "1.5 minutes", "10 minutes", "2.3 hours". */
export function duration(ms: number): string {
  const round = (n: number) => Math.round(n * 10) / 10;
  if (ms < 60_000) return `${round(ms / 1000)} s`;
  if (ms < 2 * HOUR_MS) return `${round(ms / 60_000)} minutes`;
  return `${round(ms / HOUR_MS)} hours`;
}

/** The first session a run cannot reach in its budget, and when its window opens after the first began. */
export interface ScheduleBeyondBudget {
  readonly session: number;
  readonly opensAfterMs: number;
  readonly budgetMs: number;
}

/**
 * The first of sessions 2 to `sessions` whose window, compressed as for simulated participants, opens
 * after `budgetMs` even were every earlier session begun the moment its window opened (plus the
 * participants' margin); null when every window opens within the budget. It cannot be met by any run.
 */
export function scheduleBeyondBudget(
  schedule: Schedule,
  sessions: number,
  budgetMs: number,
): ScheduleBeyondBudget | null {
  let opensAfterMs = 0;
  for (const w of compressedSchedule(schedule)) {
    if (w.session > sessions) break;
    opensAfterMs += w.opens_after_hours * HOUR_MS + WINDOW_MARGIN_MS;
    if (opensAfterMs > budgetMs) return { session: w.session, opensAfterMs, budgetMs };
  }
  return null;
}

/** The run's warning for a schedule that does not fit in its budget. */
export const beyondBudgetWarning = (b: ScheduleBeyondBudget): string =>
  `The schedule cannot be followed within the run's time budget (${duration(b.budgetMs)}): even with time compressed (an hour of the schedule lasts a second, each window at least 10 s long), session ${b.session}'s window opens ${duration(b.opensAfterMs)} after the first session begins. The simulated participants stop before session ${b.session}, so it, the sessions after it and the completion were not tested; the sessions before it were checked. To try every session, dry-run a copy of the study with a shorter schedule (hours can be as short as 0.01).`;

/** About how long a visit in the browser takes to look down the feed and watch a video. */
const BROWSER_VISIT_MS = 20_000;

/**
 * A browser run's warning when a compressed window comes too soon for a full visit before it (the
 * journeys end such visits early, drive/schedule.ts `leaveBy`), for the first of sessions 2 to
 * `sessions` it concerns; null when every visit has its time.
 */
export function shortWindowsWarning(schedule: Schedule, sessions: number): string | null {
  const w = compressedSchedule(schedule).find(
    (x) =>
      x.session <= sessions &&
      leaveBy(schedule, x.session - 1, 0, Number.POSITIVE_INFINITY) < BROWSER_VISIT_MS,
  );
  if (w === undefined) return null;
  return `With time compressed, session ${w.session}'s window opens ${duration(w.opens_after_hours * HOUR_MS)} and closes ${duration(w.closes_after_hours * HOUR_MS)} after the session before it begins: too soon for a full visit in the browser, so the simulated participants cut their visits short to come back in time, and the watch page may have gone unchecked. A run over HTTP, or a copy of the study with longer windows, checks more.`;
}

/** An arm's completion line when the schedule does not fit in the budget. */
export const beyondBudgetUntested = (b: ScheduleBeyondBudget): string =>
  `Session ${b.session}'s window opens after the run's time budget (${duration(b.budgetMs)}), even with the schedule's time compressed, so no simulated participant could reach the completion.`;

/** An arm's completion line when its simulated participants lapsed before the completion. */
export const lapsedUntested = (session: number): string =>
  `The simulated participants lapsed at session ${session} before they reached the completion: the schedule could not be followed.`;

/** Participants per session, in order of the session. */
function bySession(records: readonly JourneyRecord[], session: (r: JourneyRecord) => number | null) {
  const out = new Map<number, number>();
  for (const r of records) {
    const s = session(r);
    if (s !== null) out.set(s, (out.get(s) ?? 0) + 1);
  }
  return [...out].sort(([a], [b]) => a - b);
}

/**
 * The run's warnings about following the schedule: participants who lapsed (a window closed before
 * they came back), and those who stopped because a window opened past the budget, unless `known` (the
 * budget check before the run) already said so of that session or an earlier one.
 */
export function scheduleWarnings(
  records: readonly JourneyRecord[],
  known: ScheduleBeyondBudget | null,
): string[] {
  const warnings: string[] = [];
  const who = (n: number) => count(n, "simulated participant", "simulated participants");
  for (const [session, n] of bySession(records, (r) => r.lapsedAt))
    warnings.push(
      `${who(n)} lapsed at session ${session}: the schedule could not be followed, as ${n === 1 ? "its" : "their"} window for session ${session} closed before ${n === 1 ? "it" : "they"} came back. Fewer participants per arm, or a run over HTTP rather than in a browser, leaves each more time; what ${n === 1 ? "it" : "they"} did until then was checked.`,
    );
  const unknown = (r: JourneyRecord) =>
    r.beyondBudget !== null && (known === null || r.beyondBudget < known.session) ? r.beyondBudget : null;
  for (const [session, n] of bySession(records, unknown))
    warnings.push(
      `${who(n)} stopped before session ${session}: its window opened after the run's time budget ended; what ${n === 1 ? "it" : "they"} did was checked.`,
    );
  return warnings;
}
