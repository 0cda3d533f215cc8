import { isIP } from "node:net";
import type { Middleware } from "koa";
import { canonicalAddress } from "./client-address.ts";
import type { AppState } from "./context.ts";
import { forbidden } from "./errors.ts";

/** GET, HEAD and OPTIONS change nothing; these do. */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The names a browser on the server's own machine may use for it. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"] as const;

/** Where a request reached the server: the socket's own address and port. */
export interface LocalEnd {
  readonly address: string | undefined;
  readonly port: number | undefined;
}

const isLoopbackName = (host: string) =>
  host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** `scheme://host[:port]` as a browser writes an origin, or null when `value` is not one (`null`, say). */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The origins whose pages may change state (api.md "Trust boundaries"): the public URL's, and the
 * server's own as the request reached it (`http://<its address>:<its port>`: only Feedlab serves pages
 * there; the dry runs' browser opens it). On a loopback address, any loopback name of that port; when
 * the public URL names a loopback host, any loopback name of its port too.
 */
export function allowedOrigins(publicUrl: string, local: LocalEnd): ReadonlySet<string> {
  const allowed = new Set<string>();
  const pub = new URL(publicUrl);
  allowed.add(pub.origin);
  if (isLoopbackName(pub.hostname)) {
    for (const name of LOOPBACK_NAMES) {
      const origin = originOf(`${pub.protocol}//${name}${pub.port === "" ? "" : `:${pub.port}`}`);
      if (origin) allowed.add(origin);
    }
  }
  const address = canonicalAddress(local.address);
  if (address !== null && local.port !== undefined) {
    const host = isIP(address) === 6 ? `[${address}]` : address;
    const names = isLoopbackName(host) ? [host, ...LOOPBACK_NAMES] : [host];
    for (const name of names) {
      const origin = originOf(`http://${name}:${local.port}`);
      if (origin) allowed.add(origin);
    }
  }
  return allowed;
}

/**
 * Refuses a state-changing request that a page of another origin sent (403 `cross_origin`), before
 * anything of it is read: SameSite=Lax cookies alone let a page on a sibling subdomain through. A
 * request with no `Origin` and no `Sec-Fetch-Site` (scripts, the CLI, test clients) passes: only
 * browsers send them, and a browser always sends `Origin` on these methods.
 */
export function crossOriginGuard(allowed: (local: LocalEnd) => ReadonlySet<string>): Middleware<AppState> {
  // A server listens on few addresses: each one's origins are worked out once.
  const known = new Map<string, ReadonlySet<string>>();
  const originsAt = (local: LocalEnd) => {
    const key = `${local.address} ${local.port}`;
    let origins = known.get(key);
    if (!origins) {
      if (known.size > 64) known.clear();
      origins = allowed(local);
      known.set(key, origins);
    }
    return origins;
  };
  return async (ctx, next) => {
    if (STATE_CHANGING.has(ctx.method)) {
      const site = ctx.get("Sec-Fetch-Site").toLowerCase();
      if (site === "cross-site" || site === "same-site") {
        throw forbidden(
          "cross_origin",
          "A page of another site sent this, and Feedlab takes changes only from its own pages. Open Feedlab at its own address.",
        );
      }
      const given = ctx.req.headers.origin;
      if (given !== undefined) {
        const origins = originsAt({ address: ctx.req.socket.localAddress, port: ctx.req.socket.localPort });
        const origin = originOf(given);
        if (origin === null || !origins.has(origin)) {
          const [home] = origins;
          throw forbidden(
            "cross_origin",
            `This page is at ${given.slice(0, 200) || "an unnamed address"}, but Feedlab takes changes only from its pages at ${home} (FEEDLAB_PUBLIC_URL). Open Feedlab at ${home}.`,
          );
        }
      }
    }
    await next();
  };
}
