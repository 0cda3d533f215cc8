import type { Middleware } from "koa";
import type { AdminPrincipal, AppContext, AppState, ParticipantPrincipal } from "../http/context.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import type { AuthService } from "./auth.service.ts";
import { consoleMayCall, requireConsole } from "./console-credential.ts";
import { ADMIN_COOKIE, PARTICIPANT_COOKIE } from "./cookies.ts";

/**
 * `auth("admin")`: the admin cookie must resolve to an admin (none -> 401; a participant cookie -> 403).
 * `auth("participant")`: the participant cookie must resolve to a participant (none -> 401; only an
 * admin cookie -> 403). A browser's request to an admin route also needs the console credential (or is
 * a top-level read): 403 `console_credential_required` otherwise (console-credential.ts).
 */
export function createAuthMiddleware(auth: AuthService) {
  return (access: "admin" | "participant"): Middleware<AppState> =>
    async (ctx, next) => {
      const own = ctx.cookies.get(access === "admin" ? ADMIN_COOKIE : PARTICIPANT_COOKIE);
      const principal = own ? await auth.resolve(own) : null;
      if (principal?.role === access) {
        if (access === "admin" && own) requireConsole(ctx, own);
        ctx.state.principal = principal;
        return next();
      }
      const other = ctx.cookies.get(access === "admin" ? PARTICIPANT_COOKIE : ADMIN_COOKIE);
      const otherPrincipal = other ? await auth.resolve(other) : null;
      if (otherPrincipal) {
        throw forbidden(
          "wrong_role",
          access === "admin" ? "A participant may not use admin routes." : "This route is for participants.",
        );
      }
      throw unauthorized(access === "admin" ? "Sign in as an admin first." : "Join the study first.");
    };
}

/**
 * Whether a request carries an admin's session, for routes open to all that tell admins more (a
 * browser's request counts only with the console credential, as on admin routes).
 */
export function createAdminCheck(auth: AuthService) {
  return async (ctx: AppContext): Promise<boolean> => {
    const token = ctx.cookies.get(ADMIN_COOKIE);
    return token !== undefined && (await auth.resolve(token))?.role === "admin" && consoleMayCall(ctx, token);
  };
}

/** The admin behind a request that passed `auth("admin")`. */
export function adminOf(ctx: AppContext): AdminPrincipal {
  const p = ctx.state.principal;
  if (p?.role !== "admin") throw unauthorized("Sign in as an admin first.");
  return p;
}

/** The participant behind a request that passed `auth("participant")`. */
export function participantOf(ctx: AppContext): ParticipantPrincipal {
  const p = ctx.state.principal;
  if (p?.role !== "participant") throw unauthorized("Join the study first.");
  return p;
}
