/**
 * The HTTP client core of the web app and the participant side's endpoints: everything the participant
 * pages need (web/src/participant). The console's client (`ApiClient`, api/client.ts) adds the console
 * credential, and its endpoints are one module per feature beside it. Every call goes through `request`, which sends JSON, parses JSON, and turns a non-2xx
 * response carrying the api.md error body `{error: {code, message, details}}` into a typed `ApiError`.
 */
import type {
  ApiErrorBody,
  FeedPage,
  FeedQuery,
  JoinRequest,
  JoinResult,
  ParticipantMe,
  ParticipantUiTemplate,
  Video,
} from "./types.ts";

/** A failed API call: the HTTP status plus the contract's error code, message and details. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** HTTP status; 0 when the server could not be reached at all. */
  readonly status: number;
  /** The api.md snake_case error code, or `http_<status>` when the body carried none. */
  readonly code: string;
  readonly details: unknown;
  /** Seconds from a `Retry-After` header (sent with 429), when present. */
  readonly retryAfterSeconds: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: unknown,
    retryAfterSeconds?: number | null,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds ?? null;
  }

  /** The request field a validation error names (`details.field`), if any. */
  get field(): string | undefined {
    const details = this.details;
    if (details && typeof details === "object" && "field" in details && typeof details.field === "string") {
      return details.field;
    }
    return undefined;
  }
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}

export type Fetch = typeof fetch;
export type Query = Record<string, string | number | undefined>;
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (!value || typeof value !== "object" || !("error" in value)) return false;
  const error = value.error;
  return (
    !!error &&
    typeof error === "object" &&
    "code" in error &&
    typeof error.code === "string" &&
    "message" in error &&
    typeof error.message === "string"
  );
}

function parseRetryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

const STATUS_MESSAGES: Record<number, string> = {
  401: "You are not signed in.",
  403: "You are not allowed to do this.",
  404: "Not found.",
  413: "The request is too large.",
  429: "Too many requests. Please wait a moment and try again.",
};

/** Builds an `ApiError` from a non-2xx response body (JSON text or anything else) and its headers. */
export function errorFromResponse(status: number, bodyText: string, retryAfter: string | null): ApiError {
  let parsed: unknown;
  try {
    parsed = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    parsed = undefined;
  }
  const retry = parseRetryAfter(retryAfter);
  if (isErrorBody(parsed)) {
    return new ApiError(status, parsed.error.code, parsed.error.message, parsed.error.details, retry);
  }
  const message = STATUS_MESSAGES[status] ?? `The server answered with status ${status}.`;
  return new ApiError(status, `http_${status}`, message, undefined, retry);
}

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

const enc = encodeURIComponent;

/** The request core and the participant endpoints (join, me, sessions, feed, videos). */
export class ParticipantApi {
  readonly #fetch: Fetch;
  /**
   * Hears each error response before it is thrown, with the request's query: the participant shell
   * learns this way of a 409 `session_not_open` from a feed request a layout made (api.md
   * "Longitudinal studies (wave 4)").
   */
  onError: (error: ApiError, query: Query | undefined) => void = () => {};

  constructor(fetchFn?: Fetch) {
    // Resolve the global lazily so the client can be created before `fetch` is patched by tests.
    this.#fetch = fetchFn ?? ((input, init) => fetch(input, init));
  }

  /** Sends one request; resolves with the parsed JSON body (undefined for 204) or throws `ApiError`. */
  async request<T>(
    method: Method,
    path: string,
    options: { body?: unknown; query?: Query } = {},
  ): Promise<T> {
    const init: RequestInit = { method, headers: { accept: "application/json" }, credentials: "same-origin" };
    if (options.body !== undefined) {
      init.headers = { ...init.headers, "content-type": "application/json" };
      init.body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await this.#fetch(withQuery(path, options.query), init);
    } catch (cause) {
      throw new ApiError(0, "network_error", "Could not reach the server. Check your connection.", { cause });
    }
    const text = await response.text();
    if (!response.ok) {
      const error = errorFromResponse(response.status, text, response.headers.get("retry-after"));
      this.onError(error, options.query);
      throw error;
    }
    if (response.status === 204 || text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(response.status, "invalid_response", "The server sent a response that is not JSON.");
    }
  }

  /** A UI template of the participant's group: what the browser needs to render it. */
  uiTemplate(id: string): Promise<ParticipantUiTemplate> {
    return this.request("GET", `/api/v1/ui-templates/${encodeURIComponent(id)}`);
  }

  /** Tells the researcher that a template threw while rendering. */
  reportRenderError(id: string, report: { message: string; version: number }): Promise<void> {
    return this.request("POST", `/api/v1/ui-templates/${encodeURIComponent(id)}/render-errors`, {
      body: report,
    });
  }

  join(body: JoinRequest): Promise<JoinResult> {
    return this.request("POST", "/api/v1/participants/join", { body });
  }

  /** The signed-in participant; throws a 401 `ApiError` when the browser has not joined a study. */
  /**
   * The participant and where they stand. With the page's `sessionId`, `progress.visit` is the visit
   * it makes; with `after` (a position the events endpoint gave), the answer counts those events.
   */
  participantMe(sessionId?: string, after?: string): Promise<ParticipantMe> {
    return this.request("GET", "/api/v1/me", { query: { session_id: sessionId, after } });
  }

  /**
   * Changes the participant's language to one of the study's (204); 403 `language_switch_off` when the
   * study does not allow it, 422 `unknown_language` for a language it does not list.
   */
  setLanguage(language: string): Promise<void> {
    return this.request("PUT", "/api/v1/me/language", { body: { language } });
  }

  /** Leaves the study: the participant and all their data are erased; the cookie is cleared. */
  withdraw(): Promise<void> {
    return this.request("POST", "/api/v1/me/withdraw", { body: {} });
  }

  /**
   * Agrees to (or declines) the consent text of the version shown; `email`, where the study sends
   * reminders, is where they go (422 `invalid_email` when malformed).
   */
  consent(body: { agree: boolean; version: string; email?: string }): Promise<void> {
    return this.request("POST", "/api/v1/participants/consent", { body });
  }

  /** Registers a client-generated session id (201 the first time, 200 when repeated). */
  registerSession(sessionId: string): Promise<unknown> {
    return this.request("POST", "/sessions", { body: { session_id: sessionId } });
  }

  feed(query: FeedQuery): Promise<FeedPage> {
    return this.request("GET", "/feed", { query: { ...query } });
  }

  related(videoId: string, query: FeedQuery): Promise<FeedPage> {
    return this.request("GET", `/feed/${enc(videoId)}/related`, { query: { ...query } });
  }

  /** A video of the participant's pool (404 for anything else). */
  getVideo(id: string): Promise<Video> {
    return this.request("GET", `/api/v1/videos/${enc(id)}`);
  }
}

/** The participant pages' client. */
export const participantApi = new ParticipantApi();
