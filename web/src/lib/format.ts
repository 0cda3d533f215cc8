/** Display formatting for video metadata, in the style participants know from video sites. */

const compactNumber = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const relativeTime = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const dateFormat = new Intl.DateTimeFormat("en", { year: "numeric", month: "short", day: "numeric" });
const dateTimeFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/** `m:ss`, or `h:mm:ss` from one hour on (e.g. 65 -> "1:05", 3725 -> "1:02:05"). */
export function formatDuration(totalSeconds: number | null | undefined): string {
  if (totalSeconds === null || totalSeconds === undefined || !Number.isFinite(totalSeconds)) return "";
  const whole = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** "1 view", "532 views", "1.2K views", "3.4M views". */
export function formatViews(count: number | null | undefined): string {
  const n = count ?? 0;
  return `${compactNumber.format(n)} ${n === 1 ? "view" : "views"}`;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 days ago", "2 months ago", "just now". Empty for a missing or invalid timestamp. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "";
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const seconds = Math.round((time - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relativeTime.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/** "Mar 4, 2025". */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const time = Date.parse(iso);
  return Number.isNaN(time) ? "" : dateFormat.format(time);
}

/** "Mar 4, 2025, 2:05 PM". */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const time = Date.parse(iso);
  return Number.isNaN(time) ? "" : dateTimeFormat.format(time);
}

/** A language tag's name in the reader's language: `fr` -> "French" (or "français"); the tag if unknown. */
export function languageName(lang: string): string {
  try {
    return new Intl.DisplayNames([navigator.language || "en"], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}
