import type { Middleware } from "koa";
import type { AppState } from "./context.ts";
import { forbidden } from "./errors.ts";

/**
 * Keeps researcher code (layouts, which run on the console's origin) away from the console's windows
 * (api.md "Trust boundaries"; docs/security.md "Researcher code"):
 * - the console's pages and every admin answer isolate their window (`Cross-Origin-Opener-Policy:
 *   same-origin`) and refuse to be framed, so a page that opens or frames one cannot script it; other
 *   pages keep the windows they open (`same-origin-allow-popups`), which differs from the console's
 *   policy, so the browser separates the two even on one origin;
 * - the layout preview's document is sandboxed by its own answer too (it is framed sandboxed), so it
 *   has an origin of its own wherever it is opened;
 * - no service worker can be installed: its script would see every later request of the origin;
 * - the web app's files and the media may be loaded by the sandboxed preview (an origin of its own).
 */
export const isConsolePath = (p: string): boolean =>
  p === "/admin" ||
  p.startsWith("/admin/") ||
  p.startsWith("/api/v1/admin/") ||
  p.startsWith("/api/v1/auth/");

/** The layout preview's document (web/src/lib/platform/preview-protocol.ts names it for the web app). */
export const PREVIEW_DOCUMENT = "/layout-preview.html";

/** Files any page may load, the sandboxed preview included: the web app's build and the media. */
const isSharedFile = (p: string) => p.startsWith("/_app/") || p.startsWith("/media/") || p === "/favicon.svg";

export function consoleIsolation(): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.get("Service-Worker") !== "" || ctx.get("Sec-Fetch-Dest") === "serviceworker")
      throw forbidden("service_worker_refused", "Feedlab serves no service worker.");
    if (isConsolePath(ctx.path)) {
      ctx.set("Cross-Origin-Opener-Policy", "same-origin");
      ctx.set("X-Frame-Options", "DENY");
    } else {
      ctx.set("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
    }
    if (ctx.path === PREVIEW_DOCUMENT) ctx.append("Content-Security-Policy", "sandbox allow-scripts");
    if (isSharedFile(ctx.path)) {
      ctx.set("Cross-Origin-Resource-Policy", "cross-origin");
      // Module scripts load with CORS; the sandboxed preview's origin is `null`, and no cookie goes with `*`.
      if (ctx.path.startsWith("/_app/")) ctx.set("Access-Control-Allow-Origin", "*");
    }
    await next();
  };
}

/** The path of a request line's URL (`/admin/x?y` -> `/admin/x`), for header rules that see raw requests. */
export const pathOfUrl = (url: string | undefined): string => (url ?? "/").split("?")[0] ?? "/";
