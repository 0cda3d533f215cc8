import { createHash, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../http/context.ts";
import { forbidden } from "../http/errors.ts";
import type { AuthService } from "./auth.service.ts";
import { ADMIN_COOKIE } from "./cookies.ts";

/**
 * The console credential (api.md "Trust boundaries": researcher code never acts with an admin's rights).
 *
 * Layouts run on the console's origin, where the admin cookie is sent with every request, so the cookie
 * alone cannot tell the console from a layout. A browser's request to an admin route must also carry
 * this header, whose value only the console's own pages ever receive: in the sign-in answer, and in
 * the console's page when a browser opens it as a top-level page (never to `fetch`, an iframe or an
 * `<object>`). Console pages and admin answers isolate their window (`Cross-Origin-Opener-Policy:
 * same-origin`, no framing), so a page that opens one cannot script it. Clients that are not browsers
 * (no `Sec-Fetch-Site`: scripts, the CLI) keep using the cookie alone.
 */
export const CONSOLE_HEADER = "X-Feedlab-Console";

/** The credential of one admin session: derived from its (HttpOnly, never readable) cookie token. */
export function consoleCredential(sessionToken: string): string {
  return createHash("sha256").update(`feedlab console credential\n${sessionToken}`).digest("base64url");
}

function matches(sessionToken: string, given: string): boolean {
  const want = Buffer.from(consoleCredential(sessionToken));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A browser sent the request (browsers send Fetch Metadata; scripts and the CLI do not). */
const fromBrowser = (ctx: AppContext): boolean => ctx.get("Sec-Fetch-Site") !== "";

/**
 * A top-level page load that reads (a link, the address bar, a download): its answer opens in a window
 * of its own that no other page can script, because admin answers isolate their window. A page's
 * script cannot send such a request (`fetch` cannot navigate; an iframe or `<object>` is its own
 * destination).
 */
function isTopLevelRead(ctx: AppContext): boolean {
  if (ctx.method !== "GET" && ctx.method !== "HEAD") return false;
  const dest = ctx.get("Sec-Fetch-Dest");
  return ctx.get("Sec-Fetch-Mode") === "navigate" && (dest === "document" || dest === "empty");
}

/**
 * Whether an admin session's request may use admin routes: not a browser, a top-level read, or a
 * browser request that carries the session's console credential.
 */
export function consoleMayCall(ctx: AppContext, sessionToken: string): boolean {
  if (!fromBrowser(ctx) || isTopLevelRead(ctx)) return true;
  return matches(sessionToken, ctx.get(CONSOLE_HEADER));
}

/**
 * Whether a console page's answer may carry the credential: a top-level page load of the console
 * (`Sec-Fetch-Dest: document`), never a `fetch`, an iframe or an object whose script could read it.
 */
const mayReceiveCredential = (ctx: AppContext): boolean =>
  ctx.method === "GET" &&
  ctx.get("Sec-Fetch-Mode") === "navigate" &&
  ctx.get("Sec-Fetch-Dest") === "document";

/** Refuses (403 `console_credential_required`) an admin session's request that `consoleMayCall` does not allow. */
export function requireConsole(ctx: AppContext, sessionToken: string): void {
  if (consoleMayCall(ctx, sessionToken)) return;
  throw forbidden(
    "console_credential_required",
    "Admin routes answer a browser only when the Feedlab console asks: this request came from another page (a layout, say). If it was the console, reload the page.",
  );
}

/**
 * The credential a console page's answer carries (`<meta name="feedlab-console">`), or null: only for
 * a top-level page load by a signed-in admin.
 */
export function createConsoleCredentialSource(auth: AuthService) {
  return async (ctx: AppContext): Promise<string | null> => {
    if (!mayReceiveCredential(ctx)) return null;
    const token = ctx.cookies.get(ADMIN_COOKIE);
    if (!token || (await auth.resolve(token))?.role !== "admin") return null;
    return consoleCredential(token);
  };
}
