import type { LookupAddress } from "node:dns";
import { lookup as systemLookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, request } from "undici";
import {
  type AddressPolicy,
  BLOCKED_ADDRESS_CODE,
  bareHost,
  blockedAddressError,
  createAddressPolicy,
} from "./addresses.ts";

/**
 * Why an external recommender call gave no usable list. The first rows follow the spec's failure
 * table; `http_status` (a non-2xx answer that is not a 5xx), `connection_error` (reset, closed
 * early) and `response_too_large` are the other ways a call can fail, handled the same way.
 * `blocked_address`: the URL's host is, or resolves to, a link-local or cloud metadata address
 * (api.md "Trust boundaries"); no connection was opened.
 */
export type FailureKind =
  | "connection_refused"
  | "dns"
  | "timeout"
  | "http_5xx"
  | "invalid_json"
  | "not_a_list"
  | "all_invalid_ids"
  | "all_outside_pool"
  | "http_status"
  | "connection_error"
  | "response_too_large"
  | "blocked_address";

export interface OutboundCall {
  readonly method: "GET" | "POST";
  /** The full URL (for GET, with the body's fields already in the query string). */
  readonly url: string;
  /** Configured headers; they are sent, never logged. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body for POST; absent for GET. */
  readonly body?: unknown;
  /** Total budget of the call: connecting, sending, waiting and reading the body. */
  readonly timeoutMs: number;
}

export type CallResult =
  | { readonly ok: true; readonly status: number; readonly json: unknown; readonly text: string }
  | { readonly ok: false; readonly kind: FailureKind; readonly status?: number; readonly message: string };

export interface ExternalHttpClientOptions {
  /** Connections per origin in the keep-alive pool (default 1024: one per call in flight). */
  readonly connections?: number;
  /** DNS lookup used when connecting (default: the operating system's). Tests pass a fake one. */
  readonly lookup?: LookupFunction;
  /** Which addresses calls may connect to (default: every one but link-local and cloud metadata). */
  readonly policy?: AddressPolicy;
  /**
   * Opens a connection once its address is checked (default: undici's). It is called with the
   * checked address as `hostname` (and the URL's name as `servername`); tests record attempts with it.
   */
  readonly connector?: buildConnector.connector;
  /** Largest response body read (default 10 MB); a larger one fails as `response_too_large`. */
  readonly maxResponseBytes?: number;
  /** Sent as User-Agent unless the recommender's headers set one. */
  readonly userAgent?: string;
}

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME", "EAI_SERVICE"]);
const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
]);

/** The error and its causes (undici and net wrap errors), outermost first. */
function chain(err: unknown): { code?: string; name?: string; message?: string }[] {
  const out: { code?: string; name?: string; message?: string }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e && typeof e === "object"; i++) {
    out.push(e as { code?: string; name?: string; message?: string });
    const agg = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(agg) && agg.length > 0) out.push(...agg.map((x) => x as { code?: string }));
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** Classifies a thrown error of a call. */
function classifyError(err: unknown, timedOut: boolean): FailureKind {
  const errors = chain(err);
  const codes = errors.map((e) => e.code).filter((c): c is string => typeof c === "string");
  if (codes.includes(BLOCKED_ADDRESS_CODE)) return "blocked_address";
  if (timedOut) return "timeout";
  if (codes.some((c) => DNS_CODES.has(c))) return "dns";
  if (codes.includes("ECONNREFUSED")) return "connection_refused";
  if (codes.includes("UND_ERR_RES_EXCEEDED_MAX_SIZE")) return "response_too_large";
  if (codes.some((c) => TIMEOUT_CODES.has(c)) || errors.some((e) => e.name === "TimeoutError"))
    return "timeout";
  return "connection_error";
}

/** Errors after which the next address of a name is tried: this one could not be reached. */
const NEXT_ADDRESS_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/**
 * Checks every address before a connection opens (api.md "Trust boundaries"): an IP host as it is, a
 * name by resolving it here, at connect time, so a name that resolves to a link-local address (or
 * starts to, after registration) is refused like the address itself. The connection then goes to the
 * addresses checked, never to a second resolution of the name; they are tried in the resolver's order.
 */
function guardedConnector(
  connect: buildConnector.connector,
  lookup: LookupFunction,
  policy: AddressPolicy,
): buildConnector.connector {
  return (opts, callback) => {
    const host = bareHost(opts.hostname);
    if (isIP(host) !== 0) {
      if (policy.blocked(host)) callback(blockedAddressError(host, host), null);
      else connect(opts, callback);
      return;
    }
    lookup(host, { all: true }, (err, found) => {
      if (err) {
        callback(err, null);
        return;
      }
      const addresses = (Array.isArray(found) ? found : [{ address: String(found) }]) as LookupAddress[];
      const refused = addresses.find((a) => policy.blocked(a.address));
      if (refused) {
        callback(blockedAddressError(host, refused.address), null);
        return;
      }
      const attempt = (i: number) => {
        const address = addresses[i];
        if (!address) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }), null);
          return;
        }
        connect({ ...opts, hostname: address.address, servername: opts.servername || host }, (e, socket) => {
          const code = (e as { code?: string } | null)?.code;
          if (e && code && NEXT_ADDRESS_CODES.has(code) && i + 1 < addresses.length) attempt(i + 1);
          else if (e) callback(e, null);
          else callback(null, socket as NonNullable<typeof socket>);
        });
      };
      attempt(0);
    });
  };
}

/**
 * The outbound HTTP client of external_http recommenders: one undici Agent for the process, so
 * connections to each recommender stay open between calls (keep-alive) and are pooled per origin.
 * Every connection's address is checked first (see `guardedConnector`).
 * A call never throws: it answers the parsed JSON or the reason it has none.
 */
export function createExternalHttpClient(options: ExternalHttpClientOptions = {}) {
  const agent = new Agent({
    connections: options.connections ?? 1024,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    maxResponseSize: options.maxResponseBytes ?? 10 * 1024 * 1024,
    connect: guardedConnector(
      options.connector ?? buildConnector({}),
      options.lookup ?? (systemLookup as LookupFunction),
      options.policy ?? createAddressPolicy(),
    ),
  });
  const userAgent = options.userAgent ?? "feedlab";
  let closed = false;

  return {
    async call(call: OutboundCall): Promise<CallResult> {
      const signal = AbortSignal.timeout(call.timeoutMs);
      const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
      let body: string | undefined;
      if (call.method === "POST") {
        headers["content-type"] = "application/json";
        body = JSON.stringify(call.body ?? null);
      }
      for (const [k, v] of Object.entries(call.headers)) headers[k.toLowerCase()] = v;
      let status = 0;
      try {
        const res = await request(call.url, {
          dispatcher: agent,
          method: call.method,
          headers,
          body,
          signal,
          // Backstops of the total deadline above (which also covers connecting).
          headersTimeout: call.timeoutMs,
          bodyTimeout: call.timeoutMs,
        });
        status = res.statusCode;
        if (status < 200 || status >= 300) {
          await res.body.dump({ limit: 64 * 1024, signal }).catch(() => {});
          return {
            ok: false,
            kind: status >= 500 ? "http_5xx" : "http_status",
            status,
            message: `answered HTTP ${status}`,
          };
        }
        const text = await res.body.text();
        try {
          return { ok: true, status, json: JSON.parse(text), text };
        } catch {
          return { ok: false, kind: "invalid_json", status, message: "the response is not valid JSON" };
        }
      } catch (err) {
        const kind = classifyError(err, signal.aborted);
        const message =
          kind === "timeout"
            ? `no complete answer within ${call.timeoutMs / 1000} s`
            : String((err as Error)?.message ?? err).slice(0, 300);
        return { ok: false, kind, ...(status ? { status } : {}), message };
      }
    },

    /** Closes pooled connections; calls in flight finish first. Idempotent. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await agent.close();
    },
  };
}

export type ExternalHttpClient = ReturnType<typeof createExternalHttpClient>;
