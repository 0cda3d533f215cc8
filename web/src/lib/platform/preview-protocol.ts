import type { Video } from "../types.ts";

/**
 * The layout preview's document (web/src/participant/layout-preview.html). The console shows it in an
 * iframe sandboxed without `allow-same-origin`: the layout's code runs in an origin of its own, where
 * the admin's cookie is never sent and the console's page cannot be reached, and the two talk only by
 * these messages (api.md "Trust boundaries": researcher code never acts with an admin's rights).
 */
export const PREVIEW_DOCUMENT = "/layout-preview.html";

/** The console asks the preview to render a compiled module on one page, with the pool's videos. */
export interface PreviewRender {
  readonly kind: "feedlab-preview:render";
  readonly code: string;
  readonly page: "feed" | "watch";
  readonly videos: readonly Video[];
}

/** What the preview tells the console. */
export type PreviewReport =
  | { readonly kind: "feedlab-preview:ready" }
  | { readonly kind: "feedlab-preview:rendered" }
  | { readonly kind: "feedlab-preview:failed"; readonly message: string }
  | { readonly kind: "feedlab-preview:events"; readonly types: readonly string[] };

const record = (data: unknown): Record<string, unknown> | null =>
  typeof data === "object" && data !== null ? (data as Record<string, unknown>) : null;

/** A message the console sent, or null (anything else is ignored). */
export function asRender(data: unknown): PreviewRender | null {
  const m = record(data);
  if (m?.kind !== "feedlab-preview:render" || typeof m.code !== "string") return null;
  if (m.page !== "feed" && m.page !== "watch") return null;
  if (!Array.isArray(m.videos)) return null;
  return m as unknown as PreviewRender;
}

/**
 * A report of the preview, or null. The preview runs researcher code, so the console believes only
 * the shape: a short message, and event types as plain strings.
 */
export function asReport(data: unknown): PreviewReport | null {
  const m = record(data);
  switch (m?.kind) {
    case "feedlab-preview:ready":
    case "feedlab-preview:rendered":
      return { kind: m.kind };
    case "feedlab-preview:failed":
      return { kind: m.kind, message: String(m.message ?? "").slice(0, 500) };
    case "feedlab-preview:events":
      return Array.isArray(m.types)
        ? {
            kind: m.kind,
            types: m.types
              .filter((t): t is string => typeof t === "string")
              .slice(0, 1000)
              .map((t) => t.slice(0, 100)),
          }
        : null;
    default:
      return null;
  }
}
