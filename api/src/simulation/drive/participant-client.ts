import type { IncomingHttpHeaders } from "node:http";
import { type Dispatcher, request } from "undici";

/** One request's outcome: status, parsed JSON body (null for none), how long it took, and the headers. */
export interface Reply<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly ms: number;
  /** Lower-case names (`set-cookie` of a join, `retry-after` of a 429, `x-feedlab-read-after`). */
  readonly headers: IncomingHttpHeaders;
}

/** Every request a client makes, for latency figures: the route's pattern (ids replaced), status and time. */
export type RequestObserver = (endpoint: string, status: number, ms: number) => void;

/** `/feed/4c1e.../related?x=1` -> `/feed/{id}/related`: the endpoint a latency figure belongs to. */
function endpointOf(method: string, path: string): string {
  const bare = path.split("?")[0] ?? path;
  return `${method} ${bare.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "/{id}")}`;
}

/** A request that could not be made at all (connection refused or reset, timeout). */
class RequestFailed extends Error {
  readonly endpoint: string;
  constructor(endpoint: string, cause: unknown) {
    super(`${endpoint}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.endpoint = endpoint;
  }
}

/**
 * A simulated participant's HTTP client: the participant cookie on every request (none when it is
 * empty: a client that has not joined yet), JSON in and out, over a shared keep-alive pool (undici). It
 * never throws on a status; it throws `RequestFailed` when no answer came.
 */
export class ParticipantClient {
  private readonly baseUrl: string;
  private readonly cookie: string;
  private readonly dispatcher: Dispatcher;
  private readonly observe: RequestObserver;
  private readonly timeoutMs: number;

  constructor(
    baseUrl: string,
    cookie: string,
    dispatcher: Dispatcher,
    observe: RequestObserver = () => {},
    timeoutMs = 30_000,
  ) {
    this.baseUrl = baseUrl;
    this.cookie = cookie;
    this.dispatcher = dispatcher;
    this.observe = observe;
    this.timeoutMs = timeoutMs;
  }

  get<T>(path: string): Promise<Reply<T>> {
    return this.send<T>("GET", path);
  }

  post<T>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.send<T>("POST", path, body);
  }

  private async send<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<Reply<T>> {
    const endpoint = endpointOf(method, path);
    const started = performance.now();
    try {
      const res = await request(`${this.baseUrl}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          ...(this.cookie === "" ? {} : { cookie: this.cookie }),
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await res.body.text();
      const ms = performance.now() - started;
      this.observe(endpoint, res.statusCode, ms);
      let parsed: unknown = null;
      if (text !== "") {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      return { status: res.statusCode, body: parsed as T, ms, headers: res.headers };
    } catch (err) {
      this.observe(endpoint, 0, performance.now() - started);
      throw new RequestFailed(endpoint, err);
    }
  }
}
