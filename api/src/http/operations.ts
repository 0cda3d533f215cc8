import { createHash, timingSafeEqual } from "node:crypto";
import type Router from "@koa/router";
import type { Metrics } from "../system/metrics.ts";
import type { AppContext, AppState } from "./context.ts";
import { HttpError } from "./errors.ts";

export interface OperationsDeps {
  readonly metrics: Metrics;
  /** Checks the database and the event log; throws when either is unreachable. */
  readonly ready: () => Promise<void>;
  /** `FEEDLAB_METRICS_TOKEN`: `/metrics` then needs it as a bearer token; null leaves `/metrics` open. */
  readonly metricsToken: string | null;
  /** Whether the request carries an admin's session. */
  readonly isAdmin: (ctx: AppContext) => Promise<boolean>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * The operations endpoints (api.md): `/healthz`, `/readyz` and `/metrics`. Readiness tells a caller
 * without an admin session only `{status}`; metrics (recommender keys, counts, and a database query
 * each scrape) need the bearer token when one is set, compared in constant time.
 */
export function mountOperations(router: Router<AppState>, deps: OperationsDeps): void {
  const token = deps.metricsToken === null ? null : sha256(deps.metricsToken);
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    try {
      await deps.ready();
      ctx.body = { status: "ready" };
    } catch (err) {
      ctx.state.log.warn({ err }, "not ready");
      ctx.status = 503;
      ctx.body = (await deps.isAdmin(ctx as AppContext))
        ? { error: { code: "not_ready", message: "The database or the event log is unreachable." } }
        : { status: "not_ready" };
    }
  });
  router.get("/metrics", async (ctx) => {
    if (token !== null) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("Authorization"))?.[1] ?? "";
      if (!timingSafeEqual(sha256(given), token)) {
        throw new HttpError(
          401,
          "unauthorized",
          "Metrics need the token of FEEDLAB_METRICS_TOKEN: send Authorization: Bearer <token>.",
          undefined,
          { "WWW-Authenticate": 'Bearer realm="metrics"' },
        );
      }
    }
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
}
