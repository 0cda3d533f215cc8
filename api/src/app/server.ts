import type { Server } from "node:http";
import { auditHook } from "../audit/audit.hook.ts";
import { createAccessCheck, refuseIdentities } from "../auth/access.ts";
import { createAdminCheck, createAuthMiddleware } from "../auth/auth.middleware.ts";
import { createConsoleCredentialSource } from "../auth/console-credential.ts";
import { cookieGuard } from "../auth/cookies.ts";
import { VERSION } from "../db/release.ts";
import { DEMO_MEDIA_DIR } from "../demo/seed.ts";
import { createApp } from "../http/app.ts";
import { trustCheck } from "../http/client-address.ts";
import { allowedOrigins } from "../http/cross-origin.ts";
import { UPLOADS_PREFIX } from "../media/media-files.ts";
import { serveMedia } from "../media/media-store.ts";
import { effectivePublicUrl } from "../settings/public-url.ts";
import { WEB_BUILD_DIR } from "./build.ts";
import { routeTable } from "./routes.ts";
import type { Runtime } from "./runtime.ts";

/** The Koa app of a runtime: the route table behind the middleware, the web build and the media. */
export function buildApp(rt: Runtime, options: { webBuildDir?: string } = {}) {
  const { services, db, config } = rt;
  const cookies = { secure: config.secureCookies };
  return createApp({
    log: rt.log,
    metrics: rt.metrics,
    routes: routeTable(rt),
    version: VERSION,
    auth: createAuthMiddleware(services.auth),
    authorize: createAccessCheck(db),
    refuseIdentities,
    audit: auditHook(services.audit),
    ready: async () => {
      await db.raw("select 1");
      await rt.eventLog.healthcheck();
    },
    cookieGuard: cookieGuard(cookies),
    metricsToken: config.metricsToken,
    isAdmin: createAdminCheck(services.auth),
    consoleCredential: createConsoleCredentialSource(services.auth),
    trustedProxy: trustCheck(config.trustProxy),
    hsts: config.publicUrl.startsWith("https://"),
    allowedOrigins: (local) => allowedOrigins(effectivePublicUrl(config, local.port ?? config.port), local),
    webBuildDir: options.webBuildDir ?? WEB_BUILD_DIR,
    mediaDirs: { demo: DEMO_MEDIA_DIR },
    uploads: serveMedia(rt.media, UPLOADS_PREFIX),
  });
}

/** Starts the HTTP server; resolves once it listens. */
export function listen(app: ReturnType<typeof buildApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/** Closes the server gracefully: stop accepting, let requests in flight finish (bounded), then return. */
export function closeServer(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
