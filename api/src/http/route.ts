import type { AuditAction } from "@feedlab/schemas/http/audit-actions.ts";
import type { LeastRole } from "@feedlab/schemas/http/roles.ts";
import { isStorableText } from "@feedlab/schemas/http/text.ts";
import type Router from "@koa/router";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Middleware } from "koa";
import { parseJson, readRawBody } from "./body.ts";
import type { AppContext, AppState } from "./context.ts";
import { notFound, validationFailed } from "./errors.ts";
import { compileBody, compileQuery, toFieldPath, type Validator } from "./validation.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";
type Access = "admin" | "participant" | "public";
type Schema = TSchema | undefined;
type In<T extends Schema> = T extends TSchema ? Static<T> : undefined;

interface ResponseSpec {
  readonly description: string;
  readonly schema?: TSchema;
  /** Defaults to application/json. */
  readonly contentType?: string;
}

/**
 * Who may call a route. An admin route names the least role it needs (api.md "Teams"; OpenAPI
 * `x-feedlab-role`): on a path under an experiment (`/experiments/{id}`, `/groups/{id}`,
 * `/surveys/{id}`, `/participants/{user_id}`) a role of its members, checked against that experiment
 * (access.ts); elsewhere `researcher` (any account) or `owner` (account owners).
 */
type AccessSpec =
  | {
      readonly access: "admin";
      readonly role: LeastRole;
      /**
       * The least role on the experiment a body names as `experiment_id`, when it names one (a study
       * document applied onto an existing experiment); checked once the body is valid.
       */
      readonly roleOnBodyExperiment?: LeastRole;
    }
  | { readonly access: Exclude<Access, "admin">; readonly role?: undefined };

/** What a route declares: the same schemas validate requests and generate the OpenAPI document. */
interface RouteSpec<B extends Schema, Q extends Schema, P extends Schema> {
  readonly method: Method;
  /** OpenAPI-style path template, e.g. `/api/v1/admin/experiments/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly body?: B;
  readonly query?: Q;
  /** Path parameters; a value that fails this schema (say, a non-UUID id) answers 404. */
  readonly params?: P;
  readonly bodyLimitBytes?: number;
  /** Media types accepted besides JSON. The handler then gets the raw text in `input.raw`. */
  readonly rawBodyTypes?: readonly string[];
  /**
   * A body the handler reads from the request stream itself (an upload): documented in the OpenAPI
   * document with this media type and schema, never read before the handler runs.
   */
  readonly streamedBody?: { readonly contentType: string; readonly schema: Record<string, unknown> };
  /** Media types besides application/json whose body is JSON all the same (`text/plain` from sendBeacon). */
  readonly jsonBodyTypes?: readonly string[];
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly description?: string;
  /**
   * The handler judges text PostgreSQL cannot store (NUL, unpaired surrogates) item by item (event
   * batches); otherwise such text anywhere in a JSON body is refused whole (422 `validation_failed`).
   */
  readonly checksOwnText?: true;
  /**
   * An admin action recorded in the audit log when the route succeeds (`experiment.update`, say), or
   * a function of the request naming it (null: nothing to record).
   */
  readonly audit?: AuditAction | ((input: RouteInput<B, Q, P>) => AuditAction | null);
  /**
   * The route sets or clears a session cookie: `cookieGuard` runs before anything else of it (400
   * `insecure_request` when Secure cookies are required and the request did not arrive over HTTPS).
   */
  readonly setsCookie?: true;
  /**
   * The answer names participants by their login or recruiting ids (an export of raw data), or does
   * for some requests: refused to a member whose exports are pseudonymized only (access.ts).
   */
  readonly identifies?: true | ((input: RouteInput<B, Q, P>) => boolean);
}

export interface RouteInput<B extends Schema, Q extends Schema, P extends Schema> {
  readonly body: In<B>;
  readonly query: In<Q>;
  readonly params: In<P>;
  /** The raw body and its media type, for routes with `rawBodyTypes`. */
  readonly raw?: { mediaType: string; text: string };
}

export type Route<
  B extends Schema = Schema,
  Q extends Schema = Schema,
  P extends Schema = Schema,
> = RouteSpec<B, Q, P> &
  AccessSpec & {
    readonly handler: (ctx: AppContext, input: RouteInput<B, Q, P>) => Promise<void> | void;
  };

/** Declares a route with typed inputs. */
export function route<
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(r: Route<B, Q, P>): Route {
  return r as unknown as Route;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** `/a/{id}/b` -> `/a/:id/b` */
const toKoaPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

export interface MountDeps {
  /** The middleware that enforces an access policy (401/403). */
  readonly auth: (access: Exclude<Access, "public">) => Middleware<AppState>;
  /**
   * Checks the signed-in account's role for an admin route, after its path parameters and before its
   * body (404 for a researcher who is not a member of the experiment, 403 `forbidden_role`).
   */
  readonly authorize: (ctx: AppContext, check: RoleCheck) => Promise<void>;
  /** Refuses an answer that names participants to a member whose exports are pseudonymized only. */
  readonly refuseIdentities: (ctx: AppContext) => void;
  /** Runs first on the routes that set cookies (`setsCookie`). */
  readonly cookieGuard?: Middleware<AppState>;
  /**
   * Prepares the audit entry of a route's action before its handler runs (what a delete removes is
   * named while it exists) and answers the function that records it once the route succeeded.
   */
  readonly audit?: (
    ctx: AppContext,
    action: AuditAction,
    input: RouteInput<Schema, Schema, Schema>,
  ) => Promise<() => Promise<void>>;
}

/** What the role check of one request is given: the least role, and the experiment's resource, if any. */
export interface RoleCheck {
  readonly needed: LeastRole;
  readonly scope: { readonly kind: ScopeKind; readonly id: string } | null;
}

/** The kinds of resource under an experiment that a path names by id. */
export type ScopeKind = "experiment" | "group" | "survey" | "participant";

/** The path prefixes that name a resource under an experiment, and the parameter holding its id. */
const SCOPES: readonly { prefix: string; kind: ScopeKind; param: string }[] = [
  { prefix: "/api/v1/admin/experiments/{id}", kind: "experiment", param: "id" },
  { prefix: "/api/v1/admin/groups/{id}", kind: "group", param: "id" },
  { prefix: "/api/v1/admin/surveys/{id}", kind: "survey", param: "id" },
  { prefix: "/api/v1/admin/participants/{user_id}", kind: "participant", param: "user_id" },
];

/** The experiment's resource a path names, or null for a path outside any experiment. */
function scopeOf(path: string): { kind: ScopeKind; param: string } | null {
  const found = SCOPES.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`));
  return found ? { kind: found.kind, param: found.param } : null;
}

/** A role that only a member can meet names an experiment; a path under one needs a member's role. */
function assertRoleFits(r: Route): void {
  if (r.access !== "admin") return;
  const scoped = scopeOf(r.path) !== null;
  const memberRole = (role: LeastRole) => role !== "researcher" && role !== "owner";
  if (memberRole(r.role) && !scoped)
    throw new Error(`${r.method} ${r.path}: role ${r.role} needs a path under an experiment`);
  if (scoped && r.role === "researcher")
    throw new Error(`${r.method} ${r.path}: a path under an experiment needs a member's role`);
  if (r.roleOnBodyExperiment && (scoped || !memberRole(r.roleOnBodyExperiment)))
    throw new Error(
      `${r.method} ${r.path}: roleOnBodyExperiment is for a member's role off an experiment path`,
    );
}

/**
 * Registers routes on a router. Each route's policy reads as its middleware chain:
 * cookie guard -> auth -> params -> role -> query -> body -> (identities) -> handler. Validators are
 * compiled here, once, at start-up.
 */
export function mountRoutes(router: Router<AppState>, routes: readonly Route[], deps: MountDeps): void {
  for (const r of routes) {
    assertRoleFits(r);
    const scope = scopeOf(r.path);
    const chain: Middleware<AppState>[] = [];
    const path = toKoaPath(r.path);
    chain.push(async (ctx, next) => {
      ctx.state.routePath = r.path;
      await next();
    });
    if (r.setsCookie && deps.cookieGuard) chain.push(deps.cookieGuard);
    if (r.access !== "public") chain.push(deps.auth(r.access));
    const params = r.params ? compileQuery<unknown>(r.params) : null;
    const query = r.query ? compileQuery<unknown>(r.query) : null;
    const body = r.body ? compileBody<unknown>(r.body) : null;
    chain.push(async (ctx) => {
      const checkedParams = params ? check(params, { ...ctx.params }, "params") : undefined;
      if (r.access === "admin") {
        // A path under an experiment always holds its id (the template names it); unchecked when the
        // route declares no params, so the check itself refuses an id that is not a UUID (404).
        const values = (checkedParams ?? ctx.params) as Record<string, string>;
        await deps.authorize(ctx as AppContext, {
          needed: r.role,
          scope: scope ? { kind: scope.kind, id: String(values[scope.param]) } : null,
        });
      }
      const input = {
        params: checkedParams,
        query: query ? check(query, { ...ctx.query }, "query") : undefined,
        body: undefined as unknown,
        raw: undefined as { mediaType: string; text: string } | undefined,
      };
      if (r.body || r.rawBodyTypes) {
        const raw = await readRawBody(ctx.req, {
          limitBytes: r.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
          acceptTypes: [...(r.rawBodyTypes ?? []), ...(r.jsonBodyTypes ?? [])],
        });
        const isJson =
          raw.mediaType === "application/json" || (r.jsonBodyTypes ?? []).includes(raw.mediaType);
        if (r.rawBodyTypes && !isJson) input.raw = raw;
        else if (body) {
          const parsed = parseJson(raw.text);
          if (!r.checksOwnText) assertStorableText(raw.text, parsed);
          input.body = check(body, parsed, "body");
        } else input.raw = raw;
      }
      const typed = input as RouteInput<Schema, Schema, Schema>;
      const named = (input.body as { experiment_id?: unknown } | undefined)?.experiment_id;
      if (r.access === "admin" && r.roleOnBodyExperiment && typeof named === "string")
        await deps.authorize(ctx as AppContext, {
          needed: r.roleOnBodyExperiment,
          scope: { kind: "experiment", id: named },
        });
      const identifies = typeof r.identifies === "function" ? r.identifies(typed) : r.identifies === true;
      if (identifies) deps.refuseIdentities(ctx as AppContext);
      const action = typeof r.audit === "function" ? r.audit(typed) : r.audit;
      const audited = action && deps.audit ? await deps.audit(ctx as AppContext, action, typed) : null;
      await r.handler(ctx as AppContext, typed);
      if (audited && ctx.status < 400) await audited();
    });
    router.register(path, [r.method.toUpperCase()], chain);
  }
}

/** Where a JSON value holds text PostgreSQL cannot store (a NUL, an unpaired surrogate), or null. */
function unstorableAt(value: unknown, path: string): string | null {
  if (typeof value === "string") return isStorableText(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = unstorableAt(value[i], `${path}/${i}`);
      if (at) return at;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const here = `${path}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (!isStorableText(k)) return here;
      const at = unstorableAt(v, here);
      if (at) return at;
    }
  }
  return null;
}

/**
 * Text PostgreSQL cannot store is bad input (422 `validation_failed` naming the field), never a
 * database error. Only JSON
 * escapes can produce it (raw bytes decode to well-formed text), so most bodies skip the walk.
 */
function assertStorableText(text: string, parsed: unknown): void {
  if (!/\\u(0000|[dD][89abAB]|[dD][c-fC-F])/.test(text)) return;
  const at = unstorableAt(parsed, "");
  if (at !== null) {
    throw validationFailed([
      {
        field: toFieldPath(at),
        message: "holds a NUL character or an unpaired surrogate, which cannot be stored",
      },
    ]);
  }
}

function check(validator: Validator<unknown>, value: unknown, where: "params" | "query" | "body"): unknown {
  const result = validator(value);
  if (result.ok) return result.value;
  if (where === "params") throw notFound("resource");
  throw validationFailed(result.problems);
}
