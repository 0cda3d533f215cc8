/**
 * The schedule's windows as the participant pages read them (api.md "Longitudinal studies (wave 4)"):
 * when a session is before its window, and the times said on the come-back page and in the top bar, in
 * the participant's language and the browser's time zone.
 */
import type { ApiError, Query } from "#lib/participant-api.ts";
import type { ParticipantMe } from "#lib/types.ts";

/** The window of the session the participant is to come back for. */
export interface SessionWindow {
  /** The session it is for: 2, 3, ... */
  readonly session: number;
  readonly opensAt: string;
  /** Null when only a feed request's 409 told of the window (its details carry `opens_at` alone). */
  readonly closesAt: string | null;
}

/** A session whose feed or watch request the server refused as before its window. */
export interface RefusedSession {
  readonly sessionId: string;
  readonly opensAt: string;
}

/**
 * The refusal a failed request carries: a 409 `session_not_open` (with `details.opens_at`) of a request
 * that named its session (`session_id`); null for any other error.
 */
export function refusalOf(error: ApiError, query: Query | undefined): RefusedSession | null {
  if (error.status !== 409 || error.code !== "session_not_open") return null;
  const sessionId = query?.session_id;
  const details = error.details;
  if (typeof sessionId !== "string" || !details || typeof details !== "object") return null;
  const opensAt = "opens_at" in details ? details.opens_at : undefined;
  return typeof opensAt === "string" ? { sessionId, opensAt } : null;
}

/**
 * The window to wait for when the page's session does not count: /me says it is before the next window
 * (`session_open` false), or a feed request was refused as such (`refused`, of this session). Null when
 * the session counts, or when nothing says which window (the feed then runs, and a refusal of it is
 * what tells).
 */
export function waitingWindow(
  me: Pick<ParticipantMe, "session_open" | "next_session" | "progress">,
  refused: RefusedSession | null,
): SessionWindow | null {
  if (me.session_open && !refused) return null;
  const next = me.next_session;
  if (next) return { session: next.session, opensAt: next.opens_at, closesAt: next.closes_at };
  // Only the refusal knows: the window is the one after the sessions counted so far.
  return refused ? { session: me.progress.sessions + 1, opensAt: refused.opensAt, closesAt: null } : null;
}

/** The browser's time zone (IANA), which the participant's times are said in. */
export function browserTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `language` when the browser's Intl knows it, else English: a tag it refuses throws. */
function localeOf(language: string): string {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([language])[0] ?? "en";
  } catch {
    return "en";
  }
}

/** "Tuesday, March 4, 2025 at 2:00 PM" in `language`, at `timeZone`. Empty for an invalid timestamp. */
export function formatMoment(iso: string, language: string, timeZone: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  return new Intl.DateTimeFormat(localeOf(language), {
    dateStyle: "full",
    timeStyle: "short",
    timeZone,
  }).format(time);
}

/** A zone name that is an offset ("GMT+00:00", "UTC-3", "غرينتش+00:00"): what Intl says of a zone it has no name for. */
const OFFSET_ONLY = /[+\-−]\d/;

/** The zone's name in `language` as of `at`, in `style`; undefined where Intl has none. */
function zoneNameIn(language: string, timeZone: string, at: number, style: "longGeneric" | "long") {
  try {
    return new Intl.DateTimeFormat(localeOf(language), { timeZone, timeZoneName: style })
      .formatToParts(at)
      .find((part) => part.type === "timeZoneName")?.value;
  } catch {
    return undefined;
  }
}

/**
 * The time zone's name in `language` ("Central European Time", else as of `at`: "Coordinated Universal
 * Time"), with its IANA id when that says something the name does not ("Central European Time
 * (Europe/Berlin)"); the IANA id alone where Intl has no name.
 */
export function timeZoneName(language: string, timeZone: string, at: number): string {
  const name = [
    zoneNameIn(language, timeZone, at, "longGeneric"),
    zoneNameIn(language, timeZone, at, "long"),
  ].find((found) => found && !OFFSET_ONLY.test(found));
  if (!name || name === timeZone) return timeZone;
  return /^(UTC|GMT|Etc\/.*)$/i.test(timeZone) ? name : `${name} (${timeZone})`;
}

/** Units of `formatFromNow`, each from the length it starts at (smaller lengths use the next unit). */
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number, number][] = [
  ["day", 2 * 86_400, 86_400],
  ["hour", 90 * 60, 3_600],
  ["minute", 60, 60],
  ["second", 0, 1],
];

/**
 * How far `iso` is from `now`, in `language`: "in 3 hours", "in 2 minutes", "in 3 days" (days from two
 * days on, hours from 90 minutes, minutes from one). Empty for an invalid timestamp.
 */
export function formatFromNow(iso: string, now: number, language: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const seconds = (time - now) / 1000;
  const relative = new Intl.RelativeTimeFormat(localeOf(language), { numeric: "always" });
  for (const [unit, from, size] of UNITS) {
    if (Math.abs(seconds) >= from) return relative.format(Math.round(seconds / size), unit);
  }
  return "";
}

/**
 * The top bar's short time of the next visit in `language`, at `timeZone`: the weekday and the time
 * within six days ("Tue 2:00 PM"), else the date and the time ("Mar 14, 2:00 PM").
 */
export function formatSoon(iso: string, now: number, language: string, timeZone: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const near = time - now < 6 * 86_400_000;
  return new Intl.DateTimeFormat(localeOf(language), {
    ...(near ? { weekday: "short" } : { month: "short", day: "numeric" }),
    hour: "numeric",
    minute: "2-digit",
    timeZone,
  }).format(time);
}
