import Cookies from "cookies";
import type { Middleware } from "koa";
import type { Config } from "../config.ts";
import type { AppContext, AppState } from "../http/context.ts";
import { badRequest } from "../http/errors.ts";

export const ADMIN_COOKIE = "feedlab_admin";
export const PARTICIPANT_COOKIE = "feedlab_participant";

export interface CookiePolicy {
  /** When the session cookies carry `Secure` (config `secureCookies`). */
  readonly secure: Config["secureCookies"];
}

/**
 * The check of every route that sets a cookie (`setsCookie`), before anything else of it runs: with
 * Secure cookies required, a request that did not arrive over HTTPS (as the trusted proxies tell) is
 * refused with 400 `insecure_request` naming the setting, rather than a cookie the browser would
 * never send back. Then the cookie jar learns the request's real protocol.
 */
export function cookieGuard(policy: CookiePolicy): Middleware<AppState> {
  return async (ctx, next) => {
    const https = ctx.state.client.protocol === "https";
    if (policy.secure === "always" && !https) {
      throw badRequest(
        "insecure_request",
        "This request reached Feedlab over plain HTTP, but its session cookies are Secure (FEEDLAB_PUBLIC_URL is https, or FEEDLAB_SECURE_COOKIES=1). Behind a reverse proxy that terminates TLS, set FEEDLAB_TRUST_PROXY to the number of proxies in front (or their addresses) and have the proxy send X-Forwarded-Proto.",
        { setting: "FEEDLAB_TRUST_PROXY", protocol: ctx.state.client.protocol },
      );
    }
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys: ctx.app.keys, secure: https });
    await next();
  };
}

const isSecure = (ctx: AppContext, policy: CookiePolicy) =>
  policy.secure === "always" || (policy.secure === "over_https" && ctx.state.client.protocol === "https");

/** Sets an HttpOnly, SameSite=Lax cookie holding a session token (on a `setsCookie` route). */
export function setSessionCookie(
  ctx: AppContext,
  name: string,
  token: string,
  expires: Date,
  policy: CookiePolicy,
) {
  ctx.cookies.set(name, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: isSecure(ctx, policy),
    expires,
    path: "/",
    overwrite: true,
  });
}

export function clearCookie(ctx: AppContext, name: string, policy: CookiePolicy) {
  ctx.cookies.set(name, "", {
    httpOnly: true,
    sameSite: "lax",
    secure: isSecure(ctx, policy),
    expires: new Date(0),
    path: "/",
  });
}
