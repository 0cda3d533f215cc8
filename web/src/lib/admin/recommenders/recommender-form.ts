/**
 * The recommender form's text fields to API bodies and back, kept free of Svelte so it can be tested.
 */
import { HEADER_VALUE_MASK } from "@feedlab/schemas/http/enums.ts";
import type { ExternalHttpConfig, Recommender } from "../../types.ts";

/** Keys the API accepts: 2-64 characters, a lower-case letter first, then lower-case letters, digits, _ or -. */
export const KEY_PATTERN = /^[a-z][a-z0-9_-]{1,63}$/;

/** "Name: value" lines to a header object; answers the first bad line's problem instead. */
export function parseHeaders(
  text: string,
): { ok: true; headers: Record<string, string> } | { ok: false; message: string } {
  const headers: Record<string, string> = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { ok: false, message: `Line ${i + 1}: write each header as "Name: value".` };
    const name = line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      return { ok: false, message: `Line ${i + 1}: "${name}" is not a valid header name.` };
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return { ok: true, headers };
}

export const formatHeaders = (headers: Record<string, string> | undefined): string =>
  Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");

/**
 * The headers whose value the server keeps hidden: answers show `********` in its place, and a save
 * that sends `********` back keeps the stored value.
 */
export const storedHeaderNames = (headers: Record<string, string> | undefined): string[] =>
  Object.entries(headers ?? {})
    .filter(([, v]) => v === HEADER_VALUE_MASK)
    .map(([k]) => k);

/** The hint under the headers field: how a hidden stored value is kept or replaced. */
export function headersHint(stored: readonly string[]): string {
  const base = "One per line, Name: value. Sent on every call, never logged or shown again.";
  if (stored.length === 0) return base;
  const names = stored.join(", ");
  return `${base} ${names} ${stored.length === 1 ? "has a saved value" : "have saved values"}, hidden as ${HEADER_VALUE_MASK}: leave ${HEADER_VALUE_MASK} to keep ${stored.length === 1 ? "it" : "them"}, or type a new value.`;
}

/** The body template text: empty means the default body; otherwise a JSON object. */
export function parseTemplate(
  text: string,
): { ok: true; template: Record<string, unknown> | null } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: true, template: null };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, message: "The body template must be a JSON object." };
    }
    return { ok: true, template: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${(error as Error).message}` };
  }
}

/** The external_http config of a record, as the form shows it. */
export function configOf(r: Recommender | null): Required<Omit<ExternalHttpConfig, "body_template">> & {
  body_template: Record<string, unknown> | null;
} {
  const c = (r?.config ?? {}) as Partial<ExternalHttpConfig>;
  return {
    url: c.url ?? "",
    method: c.method ?? "POST",
    timeout_seconds: c.timeout_seconds ?? 5,
    headers: c.headers ?? {},
    body_template: c.body_template ?? null,
    video_id_path: c.video_id_path ?? "video_ids",
  };
}

/** The pages a recommender serves, for display. */
export function pagesOf(r: Pick<Recommender, "supports_feed" | "supports_watch">): string {
  const pages = [r.supports_feed ? "Feed" : null, r.supports_watch ? "Watch" : null].filter(Boolean);
  return pages.length > 0 ? pages.join(", ") : "None";
}

/** The recommenders that declare they serve a page: the only ones a group may use there. */
export function recommendersFor(recommenders: readonly Recommender[], page: "feed" | "watch"): Recommender[] {
  return recommenders.filter((r) => (page === "feed" ? r.supports_feed : r.supports_watch));
}

/** A recommender as a choice: its label, with the key when the label differs. */
export function recommenderLabel(r: Pick<Recommender, "key" | "label">): string {
  return r.label && r.label !== r.key ? `${r.label} (${r.key})` : r.key;
}
