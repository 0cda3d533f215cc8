/**
 * The one HTTP client of the web app. Every call goes through `request`, which sends JSON, parses JSON,
 * and turns a non-2xx response carrying the api.md error body `{error: {code, message, details}}` into
 * a typed `ApiError`. Load functions construct a client around SvelteKit's `fetch` (`apiFor(fetch)`);
 * components use the shared `api` instance.
 */
import type {
  AddParticipantRequest,
  AdminUser,
  ApiErrorBody,
  CreateExperimentRequest,
  Experiment,
  FeedPage,
  FeedQuery,
  Group,
  GroupInput,
  ImportSummary,
  JoinRequest,
  JoinResult,
  LoginRequest,
  ModelRun,
  NewVideo,
  Participant,
  ParticipantMe,
  Recommender,
  RecommenderCreate,
  RecommenderPatch,
  StoredEvent,
  UiPreset,
  UpdateExperimentRequest,
  Video,
  VideoPool,
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

type Fetch = typeof fetch;
type Query = Record<string, string | number | undefined>;
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

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

export class ApiClient {
  readonly #fetch: Fetch;

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
    if (!response.ok) throw errorFromResponse(response.status, text, response.headers.get("retry-after"));
    if (response.status === 204 || text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(response.status, "invalid_response", "The server sent a response that is not JSON.");
    }
  }

  // --- Admin authentication -------------------------------------------------------------------

  login(body: LoginRequest): Promise<AdminUser> {
    return this.request("POST", "/api/v1/auth/login", { body });
  }

  logout(): Promise<void> {
    return this.request("POST", "/api/v1/auth/logout");
  }

  /** The signed-in admin; throws a 401 `ApiError` when there is none. */
  adminMe(): Promise<AdminUser> {
    return this.request("GET", "/api/v1/auth/me");
  }

  // --- Experiments ------------------------------------------------------------------------------

  listExperiments(): Promise<Experiment[]> {
    return this.request("GET", "/api/v1/admin/experiments");
  }

  createExperiment(body: CreateExperimentRequest): Promise<Experiment> {
    return this.request("POST", "/api/v1/admin/experiments", { body });
  }

  getExperiment(id: string): Promise<Experiment> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(id)}`);
  }

  updateExperiment(id: string, body: UpdateExperimentRequest): Promise<Experiment> {
    return this.request("PATCH", `/api/v1/admin/experiments/${enc(id)}`, { body });
  }

  deleteExperiment(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/experiments/${enc(id)}`);
  }

  // --- Groups (arms) ------------------------------------------------------------------------------

  listGroups(experimentId: string): Promise<Group[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/groups`);
  }

  createGroup(experimentId: string, body: GroupInput): Promise<Group> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/groups`, { body });
  }

  updateGroup(id: string, body: Partial<GroupInput>): Promise<Group> {
    return this.request("PATCH", `/api/v1/admin/groups/${enc(id)}`, { body });
  }

  deleteGroup(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/groups/${enc(id)}`);
  }

  listRecommenders(): Promise<Recommender[]> {
    return this.request("GET", "/api/v1/admin/recommenders");
  }

  registerRecommender(body: RecommenderCreate): Promise<Recommender> {
    return this.request("POST", "/api/v1/admin/recommenders", { body });
  }

  updateRecommender(key: string, body: RecommenderPatch): Promise<Recommender> {
    return this.request("PATCH", `/api/v1/admin/recommenders/${enc(key)}`, { body });
  }

  deleteRecommender(key: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/recommenders/${enc(key)}`);
  }

  listUiPresets(): Promise<UiPreset[]> {
    return this.request("GET", "/api/v1/admin/ui-presets");
  }

  // --- Video pool and participants of an experiment -----------------------------------------------

  getPool(experimentId: string): Promise<VideoPool> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/videos`);
  }

  setPool(experimentId: string, videoIds: string[]): Promise<VideoPool> {
    return this.request("PUT", `/api/v1/admin/experiments/${enc(experimentId)}/videos`, {
      body: { video_ids: videoIds },
    });
  }

  listParticipants(experimentId: string): Promise<Participant[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/participants`);
  }

  /** A participant's events in time order (without the high-frequency and tab-state types). */
  trajectory(userId: string): Promise<StoredEvent[]> {
    return this.request("GET", `/api/v1/admin/participants/${enc(userId)}/trajectory`);
  }

  addParticipant(experimentId: string, body: AddParticipantRequest): Promise<Participant> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/participants`, { body });
  }

  // --- Learned model: training runs ----------------------------------------------------------------

  /** The experiment's model runs, newest first. */
  listModelRuns(experimentId: string, limit?: number): Promise<ModelRun[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/models`, { query: { limit } });
  }

  /** Queues a training run now (even when nothing changed); answers the run's id. */
  trainModel(experimentId: string): Promise<{ run_id: string }> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/models/train`);
  }

  // --- Video library --------------------------------------------------------------------------------

  listVideos(): Promise<Video[]> {
    return this.request("GET", "/api/v1/admin/videos");
  }

  async createVideos(videos: NewVideo[]): Promise<Video[]> {
    const created = await this.request<{ videos: Video[] }>("POST", "/api/v1/admin/videos", {
      body: { videos },
    });
    return created.videos;
  }

  deleteVideo(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/videos/${enc(id)}`);
  }

  // --- Participant side ----------------------------------------------------------------------------

  join(body: JoinRequest): Promise<JoinResult> {
    return this.request("POST", "/api/v1/participants/join", { body });
  }

  /** The signed-in participant; throws a 401 `ApiError` when the browser has not joined a study. */
  participantMe(): Promise<ParticipantMe> {
    return this.request("GET", "/api/v1/me");
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

/** The client for components and event handlers. */
export const api = new ApiClient();

/** A client bound to the `fetch` SvelteKit hands to a `load` function. */
export function apiFor(fetchFn: Fetch): ApiClient {
  return new ApiClient(fetchFn);
}

/** Progress of a file upload: `uploading` with a fraction (null when unknown), then `processing`. */
export type UploadProgress = { phase: "uploading"; fraction: number | null } | { phase: "processing" };

/** The content type the import endpoint expects for a file, from its extension (or its own type). */
export function importContentType(file: File): "text/csv" | "application/json" | null {
  const name = file.name.toLowerCase();
  if (name.endsWith(".csv") || file.type === "text/csv") return "text/csv";
  if (name.endsWith(".json") || file.type === "application/json") return "application/json";
  return null;
}

/**
 * Uploads a CSV or JSON file as is to `POST /api/v1/admin/videos/import`. Uses XMLHttpRequest because
 * `fetch` reports no upload progress; `onProgress` sees the upload fraction, then `processing` once the
 * body is sent and the server is working on it.
 */
export function importVideos(
  file: File,
  onProgress: (progress: UploadProgress) => void,
): Promise<ImportSummary> {
  const contentType = importContentType(file);
  if (!contentType) {
    return Promise.reject(
      new ApiError(0, "unsupported_file", "Choose a .csv or .json file.", { field: "file" }),
    );
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/v1/admin/videos/import");
    xhr.setRequestHeader("content-type", contentType);
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (event) => {
      onProgress({
        phase: "uploading",
        fraction: event.lengthComputable ? event.loaded / event.total : null,
      });
    };
    xhr.upload.onload = () => onProgress({ phase: "processing" });
    xhr.onerror = () => reject(new ApiError(0, "network_error", "The upload failed. Check your connection."));
    xhr.onabort = () => reject(new ApiError(0, "aborted", "The upload was cancelled."));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorFromResponse(xhr.status, xhr.responseText, xhr.getResponseHeader("retry-after")));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText) as ImportSummary);
      } catch {
        reject(new ApiError(xhr.status, "invalid_response", "The server sent a response that is not JSON."));
      }
    };
    onProgress({ phase: "uploading", fraction: 0 });
    xhr.send(file);
  });
}
