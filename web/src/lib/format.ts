/**
 * Display formatting the console and the participant pages share. What participants read in their
 * language (views, dates, ages) is in i18n/format.ts.
 */

// The console speaks English, but writes dates and numbers as the reader's browser does.
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** `m:ss`, or `h:mm:ss` from one hour on (e.g. 65 -> "1:05", 3725 -> "1:02:05"). */
export function formatDuration(totalSeconds: number | null | undefined): string {
  if (totalSeconds === null || totalSeconds === undefined || !Number.isFinite(totalSeconds)) return "";
  const whole = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
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

/** A count with its noun in English, grouped as the reader's browser writes numbers: "1 session", "1,204 events". */
export const countOf = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString()} ${n === 1 ? one : many}`;
