/**
 * Video metadata as participants read it, in the style they know from video sites and in the language
 * of Feedlab's strings (`participantLanguage.locale`): views, publication dates and ages, caption names.
 */
import { participantLanguage, t } from "./messages.svelte.ts";

/** Formatters by locale: a feed renders them for every card. */
const formatters = new Map<
  string,
  { compact: Intl.NumberFormat; relative: Intl.RelativeTimeFormat; date: Intl.DateTimeFormat }
>();

function formattersOf(locale: string) {
  let found = formatters.get(locale);
  if (!found) {
    found = {
      compact: new Intl.NumberFormat(locale, { notation: "compact", maximumFractionDigits: 1 }),
      relative: new Intl.RelativeTimeFormat(locale, { numeric: "auto" }),
      date: new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric" }),
    };
    formatters.set(locale, found);
  }
  return found;
}

/**
 * "1 view", "532 views", "1.2K views", "3.4M views". Empty for a video whose count is unknown (imported
 * without `view_count`): a card says nothing rather than "0 views".
 */
export function formatViews(count: number | null | undefined): string {
  if (count === null || count === undefined) return "";
  return t("video.views", { count, views: formattersOf(participantLanguage.locale).compact.format(count) });
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
  const { relative } = formattersOf(participantLanguage.locale);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.trunc(seconds / size), unit);
  }
  return t("time.justNow");
}

/** "Mar 4, 2025". */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const time = Date.parse(iso);
  return Number.isNaN(time) ? "" : formattersOf(participantLanguage.locale).date.format(time);
}

/** A caption track's language named in the participant's language: `fr` -> "French", "Französisch". */
export function captionName(lang: string): string {
  try {
    return new Intl.DisplayNames([participantLanguage.locale], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}
