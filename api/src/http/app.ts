import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import Router from "@koa/router";
import Koa, { type Middleware } from "koa";
import helmet from "koa-helmet";
import type { Logger } from "pino";
import type { Metrics } from "../system/metrics.ts";
import { type ClientOrigin, clientOrigin, type TrustCheck } from "./client-address.ts";
import { consoleIsolation, isConsolePath, PREVIEW_DOCUMENT, pathOfUrl } from "./console-isolation.ts";
import type { AppContext, AppState } from "./context.ts";
import { crossOriginGuard, type LocalEnd } from "./cross-origin.ts";
import { docsMiddleware } from "./docs.ts";
import { HttpError } from "./errors.ts";
import { buildOpenApi } from "./openapi.ts";
import { mountOperations } from "./operations.ts";
import { type MountDeps, mountRoutes, type Route } from "./route.ts";
import { APP_SHELL, inlineScriptSources, PARTICIPANT_SHELL, serveFolder, serveWebApp } from "./static.ts";

export interface AppDeps extends MountDeps {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly routes: readonly Route[];
  readonly version: string;
  /** Checks the database and the event log; throws when either is unreachable. */
  readonly ready: () => Promise<void>;
  /** Folder of the built web app (`web/build`). */
  readonly webBuildDir: string;
  /** Media served under `/media/<name>/...`. */
  readonly mediaDirs: Readonly<Record<string, string>>;
  /** Serves uploaded media (under `/media/uploads/`). */
  readonly uploads?: Middleware<AppState>;
  /** Which proxies' forwarded headers tell the client's address and protocol (none by default). */
  readonly trustedProxy?: TrustCheck;
  /** The public URL is https: responses carry Strict-Transport-Security. */
  readonly hsts?: boolean;
  /** `FEEDLAB_METRICS_TOKEN`: `/metrics` needs it as a bearer token (unset: open). */
  readonly metricsToken?: string | null;
  /** The console credential a console page's answer carries (a top-level load by an admin), or null. */
  readonly consoleCredential?: (ctx: AppContext) => Promise<string | null>;
  /** Whether a request carries an admin's session (`/readyz` then says why it is not ready). */
  readonly isAdmin?: (ctx: AppContext) => Promise<boolean>;
  /** The origins whose pages may change state, for a request that reached the server there (`allowedOrigins`). */
  readonly allowedOrigins: (local: LocalEnd) => ReadonlySet<string>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Paths that belong to the API rather than to the web app. */
const isApiPath = (p: string) =>
  p.startsWith("/api/") ||
  p === "/api" ||
  p === "/feed" ||
  p.startsWith("/feed/") ||
  p.startsWith("/sessions") ||
  p.startsWith("/media/") ||
  p === "/healthz" ||
  p === "/readyz" ||
  p === "/metrics";

export function createApp(deps: AppDeps): Koa<AppState> {
  // Koa's own proxy mode believes forwarded headers from anyone; step 1 believes trusted proxies only.
  const app = new Koa<AppState>({ proxy: false });
  const router = new Router<AppState>();
  const trusted = deps.trustedProxy ?? (() => false);

  // 1. The client (address and protocol, as trusted proxies tell) and the request id, taken from
  //    X-Request-Id when sane, else generated, echoed on the response. Both go on every log line.
  app.use(async (ctx, next) => {
    const client: ClientOrigin = clientOrigin(
      {
        peer: ctx.req.socket.remoteAddress,
        encrypted: "encrypted" in ctx.req.socket && ctx.req.socket.encrypted === true,
        headers: ctx.req.headers,
      },
      trusted,
    );
    ctx.state.client = client;
    ctx.request.ip = client.address;
    const given = ctx.get("X-Request-Id");
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = deps.log.child({ req_id: requestId, client: client.address });
    ctx.set("X-Request-Id", requestId);
    await next();
  });

  // 2. Access log and metrics (route templates as labels, never raw paths).
  app.use(async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = ctx.state.routePath ?? (isApiPath(ctx.path) ? "unmatched" : "static");
      deps.metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
      deps.metrics.httpDuration.observe({ method: ctx.method, route }, seconds);
      if (route !== "static" || ctx.status >= 400) {
        ctx.state.log.info(
          { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) },
          "request",
        );
      }
    }
  });

  // 3. Errors: HttpError renders api.md's body; anything else is a generic 500 that leaks nothing.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = err instanceof HttpError ? err : toHttpError(err);
      if (e.status >= 500) ctx.state.log.error({ err }, "request failed");
      ctx.status = e.status;
      ctx.set(e.headers);
      ctx.body = {
        error: {
          code: e.code,
          message: e.message,
          ...(e.details === undefined ? {} : { details: e.details }),
          request_id: ctx.state.requestId,
        },
      };
    }
  });

  // 4. Security headers. Inline scripts of the web app's shells are allowed by hash, not wholesale.
  const shellSources = [APP_SHELL, PARTICIPANT_SHELL].map((shell) =>
    inlineScriptSources(path.join(deps.webBuildDir, shell)),
  );
  const shellScripts = () =>
    shellSources
      .map((sources) => sources())
      .filter((sources) => sources !== "")
      .join(" ");
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          // The YouTube and Vimeo player adapters load the providers' player APIs from here.
          // The console's layout editor compiles in the browser (esbuild's WebAssembly module, in a
          // worker started from a blob) and previews the module it made (a blob): the console only.
          "script-src": [
            "'self'",
            "https://www.youtube.com",
            "https://player.vimeo.com",
            () => shellScripts(),
            // The sandboxed layout preview imports the module it is sent (a blob) too.
            (req: IncomingMessage) => {
              const p = pathOfUrl(req.url);
              if (p === "/admin" || p.startsWith("/admin/")) return "'wasm-unsafe-eval' blob:";
              return p === PREVIEW_DOCUMENT ? "blob:" : "";
            },
          ],
          "style-src": ["'self'", "'unsafe-inline'"],
          "img-src": ["'self'", "data:", "blob:", "https:"],
          "media-src": ["'self'", "blob:", "https:"],
          // The console frames the layout preview (sandboxed); nothing frames a console page.
          "frame-src": [
            (req: IncomingMessage) => (isConsolePath(pathOfUrl(req.url)) ? "'self'" : ""),
            "https://www.youtube.com",
            "https://www.youtube-nocookie.com",
            "https://player.vimeo.com",
          ],
          "connect-src": ["'self'"],
          "frame-ancestors": [
            (req: IncomingMessage) => (isConsolePath(pathOfUrl(req.url)) ? "'none'" : "'self'"),
          ],
          "upgrade-insecure-requests": null,
        },
      },
      crossOriginEmbedderPolicy: false,
      // Set per page below (console-isolation.ts).
      crossOriginOpenerPolicy: false,
      // Browsers heed it over HTTPS only; behind a TLS proxy every response is one.
      strictTransportSecurity: deps.hsts ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    }),
  );

  // 4b. The console's windows apart from every other page's (researcher code runs on this origin).
  app.use(consoleIsolation());

  // 5. A state-changing request that a page of another origin sent: 403 cross_origin, before any body is read.
  app.use(crossOriginGuard(deps.allowedOrigins));

  // 6. Operations endpoints.
  const openapi = buildOpenApi(deps.routes, { version: deps.version });
  router.use(["/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"], async (ctx, next) => {
    ctx.state.routePath = ctx.path;
    await next();
  });
  mountOperations(router, {
    metrics: deps.metrics,
    ready: deps.ready,
    metricsToken: deps.metricsToken ?? null,
    isAdmin: deps.isAdmin ?? (async () => false),
  });
  router.get("/api/v1/openapi.json", (ctx) => {
    ctx.body = openapi;
  });

  mountRoutes(router, deps.routes, deps);
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () =>
        new HttpError(405, "method_not_allowed", "This path does not accept that method."),
      notImplemented: () => new HttpError(501, "not_implemented", "That method is not implemented."),
    }),
  );
  app.use(docsMiddleware());
  for (const [name, dir] of Object.entries(deps.mediaDirs))
    app.use(serveFolder(`/media/${name}/`, dir, 86400));
  if (deps.uploads) app.use(deps.uploads);
  app.use(serveWebApp(deps.webBuildDir, isApiPath, deps.consoleCredential));
  app.use((ctx) => {
    throw new HttpError(404, "not_found", `Nothing at ${ctx.method} ${ctx.path}.`);
  });

  app.on("error", (err, ctx) => {
    // Errors after the response started (e.g. a client hanging up mid-stream) land here.
    const log = (ctx?.state as AppState | undefined)?.log ?? deps.log;
    if ((err as { code?: string }).code !== "ECONNRESET") log.warn({ err }, "response error");
  });
  return app;
}

/** Errors raised by Koa or its libraries carry a status; keep client ones, hide server ones. */
function toHttpError(err: unknown): HttpError {
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500) {
    return new HttpError(
      e.status,
      e.status === 404 ? "not_found" : "bad_request",
      e.expose && e.message ? e.message : "Bad request.",
    );
  }
  return new HttpError(500, "internal_error", "Something went wrong on our side. The error was logged.");
}
