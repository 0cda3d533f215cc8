import {
  AccountRoleSchema,
  AdminAccount,
  AdminCreate,
  AdminCreated,
  AdminMe,
  AdminRoleChange,
  AdminSignedIn,
  ErrorBody,
  LoginBody,
  PasswordChange,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { addressGroup } from "../http/client-address.ts";
import { tooManyRequests, unauthorized } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { AuthService } from "./auth.service.ts";
import { CONSOLE_HEADER, consoleCredential, requireConsole } from "./console-credential.ts";
import { ADMIN_COOKIE, type CookiePolicy, clearCookie, setSessionCookie } from "./cookies.ts";
import { FailureLimiter } from "./rate-limit.ts";

export interface AuthRoutesDeps {
  readonly auth: AuthService;
  readonly cookies: CookiePolicy;
  /** Sign-in attempts allowed per address group in 15 minutes, counted before the password is checked: 10. */
  readonly attempts?: FailureLimiter;
  /**
   * Sign-ins (and failed attempts) are recorded here: the audit log's `record`, passed in by the
   * composition root (the audit log's routes read accounts' memberships, so auth does not import it).
   */
  readonly audit?: {
    record(entry: {
      admin: string | null;
      action: "auth.login" | "auth.login_failed";
      target: string;
      details: { address: string };
    }): Promise<void>;
  };
}

/** Failed sign-ins one address group may make in the window (api.md "Trust boundaries"). */
const SIGN_IN_ATTEMPTS = 10;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Sign-in attempts are counted per client address (IPv6 by its /64) before the password is checked,
 * so attempts made at once cannot pass the limit, and refused ones cost no password hash. A success
 * takes its own attempt back but leaves the failures before it counted. Only the address is counted,
 * never the username: an attacker elsewhere cannot lock an admin out.
 */
export function authRoutes({ auth, cookies, attempts, audit }: AuthRoutesDeps) {
  const limit = attempts ?? new FailureLimiter({ max: SIGN_IN_ATTEMPTS, windowMs: SIGN_IN_WINDOW_MS });

  return [
    route({
      method: "post",
      path: "/api/v1/auth/login",
      setsCookie: true,
      tag: "auth",
      summary: "Sign in as an admin",
      description:
        "Sets an HttpOnly admin session cookie. Attempts are counted per client address (IPv6 addresses by their /64) before the password is checked: after 10 failed attempts within 15 minutes (a success does not reset the count), further attempts answer 429 with Retry-After without checking the password. Other addresses are not affected.",
      access: "public",
      body: LoginBody,
      responses: {
        200: { description: "Signed in", schema: AdminSignedIn },
        401: { description: "Wrong username or password" },
        429: { description: "Too many failed attempts from this address; see Retry-After" },
      },
      handler: async (ctx, { body }) => {
        const group = addressGroup(ctx.ip);
        const wait = limit.attempt(group);
        if (wait > 0)
          throw tooManyRequests(wait, `Too many failed sign-in attempts. Try again in ${wait} s.`);
        let admin: Awaited<ReturnType<AuthService["verifyAdmin"]>>;
        try {
          admin = await auth.verifyAdmin(body.username, body.password);
        } catch (err) {
          // Not a failed guess: the database did not answer.
          limit.forgive(group);
          throw err;
        }
        if (!admin) {
          await audit?.record({
            admin: null,
            action: "auth.login_failed",
            target: body.username,
            details: { address: ctx.ip },
          });
          throw unauthorized("Wrong username or password.");
        }
        limit.forgive(group);
        await audit?.record({
          admin: admin.username,
          action: "auth.login",
          target: admin.username,
          details: { address: ctx.ip },
        });
        const { token, expiresAt } = await auth.issueAdminSession(admin.adminId);
        setSessionCookie(ctx, ADMIN_COOKIE, token, expiresAt, cookies);
        const role = (await auth.roleOf(admin.adminId)) ?? "researcher";
        ctx.body = { username: admin.username, role, console_token: consoleCredential(token) };
      },
    }),
    route({
      method: "post",
      path: "/api/v1/auth/logout",
      setsCookie: true,
      tag: "auth",
      summary: "Sign out (ends the admin session)",
      description: `From a browser, the admin session ends only when the request carries ${CONSOLE_HEADER} (another page cannot sign the admin out).`,
      access: "public",
      responses: {
        204: { description: "Signed out" },
        403: {
          description: "A browser's request without the console credential (console_credential_required)",
        },
      },
      handler: async (ctx) => {
        const token = ctx.cookies.get(ADMIN_COOKIE);
        if (token) {
          requireConsole(ctx, token);
          await auth.revoke(token);
        }
        clearCookie(ctx, ADMIN_COOKIE, cookies);
        ctx.status = 204;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/auth/me",
      tag: "auth",
      summary: "The signed-in admin",
      access: "admin",
      role: "researcher",
      responses: {
        200: { description: "Signed in", schema: AdminMe },
        401: { description: "Not signed in" },
      },
      handler: async (ctx) => {
        const p = ctx.state.principal;
        if (p?.role !== "admin") throw unauthorized();
        const role = await auth.roleOf(p.adminId);
        if (role === null) throw unauthorized();
        ctx.body = { username: p.username, role };
      },
    }),
    route({
      method: "post",
      path: "/api/v1/auth/password",
      tag: "auth",
      summary: "Change the signed-in admin's password",
      audit: "admin.password_change",
      description:
        "Needs the current password (403 wrong_password otherwise); the new one has at least 8 characters. The admin's other sessions end; this one stays signed in.",
      access: "admin",
      role: "researcher",
      body: PasswordChange,
      responses: {
        204: { description: "Changed" },
        403: { description: "wrong_password", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        const p = ctx.state.principal;
        if (p?.role !== "admin") throw unauthorized();
        await auth.changePassword(
          p.adminId,
          body.current_password,
          body.new_password,
          ctx.cookies.get(ADMIN_COOKIE),
        );
        ctx.status = 204;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/admins",
      tag: "auth",
      summary: "The admins, oldest first",
      access: "admin",
      role: "owner",
      responses: { 200: { description: "Admins", schema: Type.Array(AdminAccount) } },
      handler: async (ctx) => {
        ctx.body = await auth.listAdmins();
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/admins",
      tag: "auth",
      summary: "Add an account",
      audit: "admin.add",
      description:
        "Username: 1-64 letters, digits and . _ @ -; password: at least 8 characters, or none to have one generated, answered this once. Role: researcher unless told.",
      access: "admin",
      role: "owner",
      body: AdminCreate,
      responses: {
        201: { description: "Added", schema: AdminCreated },
        409: { description: "duplicate_username", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        ctx.body = await auth.addAdmin(body.username, body.password, body.role ?? "researcher");
        ctx.status = 201;
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/admins/{username}",
      tag: "auth",
      summary: "Change an account's role (never the last owner's)",
      audit: "admin.role_change",
      description:
        "Applies at once, to the account's sessions already signed in. Demoting the last owner -> 409 last_owner.",
      access: "admin",
      role: "owner",
      params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) }),
      body: AdminRoleChange,
      responses: {
        200: {
          description: "Changed",
          schema: Type.Object({ username: Type.String(), role: AccountRoleSchema }),
        },
        404: { description: "Unknown admin", schema: ErrorBody },
        409: { description: "last_owner", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = await auth.setAdminRole(params.username, body.role);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/admins/{username}",
      tag: "auth",
      summary: "Remove an account (never the only one, nor the last owner)",
      audit: "admin.remove",
      description:
        "Their sessions end at once. Removing the only account -> 409 last_admin; the last owner -> 409 last_owner.",
      access: "admin",
      role: "owner",
      params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) }),
      responses: {
        204: { description: "Removed" },
        404: { description: "Unknown admin", schema: ErrorBody },
        409: { description: "last_admin, last_owner", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        await auth.removeAdmin(params.username);
        ctx.status = 204;
      },
    }),
  ];
}
