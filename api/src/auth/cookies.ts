import type { AppContext } from "../http/context.ts";

export const ADMIN_COOKIE = "feedlab_admin";
export const PARTICIPANT_COOKIE = "feedlab_participant";

export interface CookiePolicy {
  readonly secure: boolean;
}

/** Sets an HttpOnly, SameSite=Lax cookie holding a session token. */
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
    secure: policy.secure,
    expires,
    path: "/",
    overwrite: true,
  });
}

export function clearCookie(ctx: AppContext, name: string, policy: CookiePolicy) {
  ctx.cookies.set(name, "", {
    httpOnly: true,
    sameSite: "lax",
    secure: policy.secure,
    expires: new Date(0),
    path: "/",
  });
}
