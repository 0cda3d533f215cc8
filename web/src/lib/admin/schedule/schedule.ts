import type { Reminders, Schedule } from "@feedlab/schemas";

/*
 * The "Schedule and reminders" form without its component (api.md "Longitudinal studies (wave 4)"):
 * durations typed in minutes, hours or days and sent in hours, the form's rows and their checks, and
 * where a server's 422 about the schedule or the reminders is shown.
 */

/** The units a duration is typed in, with their length in hours, in the menu's order. */
export const UNITS = { minutes: 1 / 60, hours: 1, days: 24 } as const;
export type Unit = keyof typeof UNITS;

/** A duration as the form holds it: a number input's value (a number, or "" / null when empty) and its unit. */
export interface Duration {
  amount: number | string | null;
  unit: Unit;
}

/** One later session's window as the form holds it: its row `i` is session `i + 2`. */
export interface WindowRow {
  opens: Duration;
  closes: Duration;
}

/** The whole form. `beforeClose` is the optional second reminder; an empty amount means none. */
export interface ScheduleForm {
  rows: WindowRow[];
  email: boolean;
  beforeClose: Duration;
}

/** schemas/src/http/schedule.ts `Hours`: from a hundredth of an hour (36 s) to ten years. */
const HOURS_MIN = 0.01;
const HOURS_MAX = 87_600;
/** schemas/src/http/schedule.ts `Schedule`: at most this many windows. */
export const MAX_WINDOWS = 100;
/** How close a converted amount must be to a whole number to be shown as one (floating point). */
const EPSILON = 1e-6;

/**
 * Hours of an amount in a unit: 90 minutes -> 1.5; 2 days -> 48. Rounded to 12 digits, so 1.1 days is
 * 26.4 hours (not 26.400000000000002) and a value at a limit of the server's range stays inside it.
 */
export const toHours = (amount: number, unit: Unit): number => Number((amount * UNITS[unit]).toPrecision(12));

const whole = (x: number) => Math.abs(x - Math.round(x)) < EPSILON;

/**
 * Hours in the largest unit that shows them as a whole number: 48 -> 2 days, 6 -> 6 hours, 0.25 -> 15
 * minutes; then minutes with up to two decimals, as a pilot's schedule is typed (0.7 minutes, 0.6 for a
 * hundredth of an hour); else hours with their decimals.
 */
export function fromHours(hours: number): Duration {
  if (hours >= 24 && whole(hours / 24)) return { amount: Math.round(hours / 24), unit: "days" };
  if (whole(hours)) return { amount: Math.round(hours), unit: "hours" };
  if (whole(hours * 60)) return { amount: Math.round(hours * 60), unit: "minutes" };
  if (whole(hours * 6000)) return { amount: Math.round(hours * 6000) / 100, unit: "minutes" };
  return { amount: Number(hours.toPrecision(10)), unit: "hours" };
}

/** A duration in words: "2 days", "1 hour", "90 minutes". */
export function durationWords(hours: number): string {
  const { amount, unit } = fromHours(hours);
  return `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
}

/** The form of a stored experiment. A reminder's unset second message starts empty, in hours. */
export function formOf(schedule: Schedule, reminders: Reminders | null): ScheduleForm {
  const before = reminders?.before_close_hours;
  return {
    rows: schedule.map((w) => ({
      opens: fromHours(w.opens_after_hours),
      closes: fromHours(w.closes_after_hours),
    })),
    email: reminders?.email === true,
    beforeClose: before === undefined ? { amount: "", unit: "hours" } : fromHours(before),
  };
}

/** The row an added session starts with: the last window again (a weekly study adds weeks), else 1 to 2 days. */
export function nextRow(rows: readonly WindowRow[]): WindowRow {
  const last = rows.at(-1);
  return last
    ? { opens: { ...last.opens }, closes: { ...last.closes } }
    : { opens: { amount: 1, unit: "days" }, closes: { amount: 2, unit: "days" } };
}

/** The form fields a message is shown at: the server's own paths (`schedule[1].closes_after_hours`). */
export type ScheduleField =
  | "schedule"
  | `schedule[${number}]`
  | `schedule[${number}].opens_after_hours`
  | `schedule[${number}].closes_after_hours`
  | "reminders"
  | "reminders.before_close_hours";

export const opensField = (i: number): ScheduleField => `schedule[${i}].opens_after_hours`;
export const closesField = (i: number): ScheduleField => `schedule[${i}].closes_after_hours`;
export const rowField = (i: number): ScheduleField => `schedule[${i}]`;

/** The session a row is for: the first session has no window, so row 0 is session 2. */
export const sessionOf = (i: number): number => i + 2;

/** What the form sends, or the messages to show at its fields. */
export type Checked =
  | { ok: true; body: { schedule: Schedule; reminders: Reminders | null } }
  | { ok: false; errors: Partial<Record<ScheduleField, string>> };

/** Whether a duration was left empty. */
const empty = (d: Duration): boolean => String(d.amount ?? "").trim() === "";

/** The hours of a duration, or what is wrong with it in the form's words (`ifEmpty` when left empty). */
function hoursOf(d: Duration, ifEmpty: string): number | string {
  if (empty(d)) return ifEmpty;
  const amount = Number(String(d.amount).trim());
  if (!Number.isFinite(amount)) return "Enter a number.";
  const hours = toHours(amount, d.unit);
  if (hours < HOURS_MIN) return "Enter at least 36 seconds (0.01 hours, 0.6 minutes).";
  if (hours > HOURS_MAX) return "Enter at most 10 years (3650 days).";
  return hours;
}

/**
 * Checks the form as the server would (schemas/src/http/schedule.ts) and builds the PATCH body: every
 * window opens and closes within range and closes after it opens; the second reminder, when set, is
 * shorter than every window (it would otherwise come before the window opens); reminders need a window
 * to remind of. Unticked e-mail sends `reminders: null`.
 */
export function checkForm(form: ScheduleForm): Checked {
  const errors: Partial<Record<ScheduleField, string>> = {};
  const schedule: Schedule = [];
  if (form.rows.length > MAX_WINDOWS)
    errors.schedule = `A schedule has at most ${MAX_WINDOWS} later sessions.`;
  for (const [i, row] of form.rows.entries()) {
    const opens = hoursOf(row.opens, "Enter how long after the previous session began the window opens.");
    const closes = hoursOf(row.closes, "Enter how long after the previous session began the window closes.");
    if (typeof opens === "string") errors[opensField(i)] = opens;
    if (typeof closes === "string") errors[closesField(i)] = closes;
    else if (typeof opens === "number" && closes <= opens)
      errors[closesField(i)] = `The window must close later than it opens (${durationWords(opens)}).`;
    if (typeof opens === "number" && typeof closes === "number")
      schedule.push({ session: sessionOf(i), opens_after_hours: opens, closes_after_hours: closes });
  }

  let reminders: Reminders | null = null;
  if (form.email) {
    reminders = { email: true };
    if (form.rows.length === 0)
      errors.reminders = "Reminders are sent when a session's window opens: add a later session first.";
    if (!empty(form.beforeClose)) {
      const before = hoursOf(form.beforeClose, "");
      if (typeof before === "string") errors["reminders.before_close_hours"] = before;
      else {
        const shortest = shortestWindow(schedule);
        if (shortest && before >= shortest.hours)
          errors["reminders.before_close_hours"] =
            `Must be shorter than every window: session ${shortest.session}'s is open for ${durationWords(shortest.hours)}.`;
        reminders.before_close_hours = before;
      }
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body: { schedule, reminders } };
}

/**
 * The window open for the least time, with its length in hours; null without windows. A window that
 * closes before it opens has its own message and is left out here.
 */
function shortestWindow(schedule: Schedule): { session: number; hours: number } | null {
  let best: { session: number; hours: number } | null = null;
  for (const w of schedule) {
    const hours = w.closes_after_hours - w.opens_after_hours;
    if (hours > 0 && (!best || hours < best.hours)) best = { session: w.session, hours };
  }
  return best;
}

/**
 * Where the form shows a server's message about the schedule or the reminders (422 `invalid_schedule`,
 * `invalid_reminders`; `details.field` like `schedule[1].closes_after_hours`): at that field when the
 * form has it, at its row for anything else of a window (its session number), at the list or the
 * reminders otherwise. Null for an error about neither, which the form shows above itself.
 */
export function fieldOfError(code: string, field: string | undefined, rows: number): ScheduleField | null {
  const window = field ? /^schedule\[(\d+)\](?:\.(\w+))?$/.exec(field) : null;
  if (window) {
    const i = Number(window[1]);
    if (i >= rows) return "schedule";
    if (window[2] === "opens_after_hours") return opensField(i);
    if (window[2] === "closes_after_hours") return closesField(i);
    return rowField(i);
  }
  if (field === "reminders.before_close_hours") return "reminders.before_close_hours";
  if (field?.startsWith("reminders")) return "reminders";
  if (field?.startsWith("schedule")) return "schedule";
  if (code === "invalid_schedule") return "schedule";
  if (code === "invalid_reminders") return "reminders";
  return null;
}
