import type { LookupFunction } from "node:net";
import { Agent, request } from "undici";

/**
 * Why an external recommender call gave no usable list. The first rows follow the spec's failure
 * table; `http_status` (a non-2xx answer that is not a 5xx), `connection_error` (reset, closed
 * early) and `response_too_large` are the other ways a call can fail, handled the same way.
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
  | "response_too_large";

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
  | { readonly ok: true; readonly status: number; readonly json: unknown }
  | { readonly ok: false; readonly kind: FailureKind; readonly status?: number; readonly message: string };

export interface ExternalHttpClientOptions {
  /** Connections per origin in the keep-alive pool (default 1024: one per call in flight). */
  readonly connections?: number;
  /** DNS lookup used when connecting (default: the operating system's). Tests pass a fake one. */
  readonly lookup?: LookupFunction;
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
  if (timedOut) return "timeout";
  const errors = chain(err);
  const codes = errors.map((e) => e.code).filter((c): c is string => typeof c === "string");
  if (codes.some((c) => DNS_CODES.has(c))) return "dns";
  if (codes.includes("ECONNREFUSED")) return "connection_refused";
  if (codes.includes("UND_ERR_RES_EXCEEDED_MAX_SIZE")) return "response_too_large";
  if (codes.some((c) => TIMEOUT_CODES.has(c)) || errors.some((e) => e.name === "TimeoutError"))
    return "timeout";
  return "connection_error";
}

/**
 * The outbound HTTP client of external_http recommenders: one undici Agent for the process, so
 * connections to each recommender stay open between calls (keep-alive) and are pooled per origin.
 * A call never throws: it answers the parsed JSON or the reason it has none.
 */
export function createExternalHttpClient(options: ExternalHttpClientOptions = {}) {
  const agent = new Agent({
    connections: options.connections ?? 1024,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    maxResponseSize: options.maxResponseBytes ?? 10 * 1024 * 1024,
    connect: options.lookup ? { lookup: options.lookup } : {},
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
          return { ok: true, status, json: JSON.parse(text) };
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
