/**
 * The one HTTP client of the web app: the participant client (participant-api.ts) plus the admin
 * console's endpoints. Load functions construct a client around SvelteKit's `fetch` (`apiFor(fetch)`);
 * components use the shared `api` instance.
 */

import {
  CONSOLE_HEADER,
  consoleCredential,
  setConsoleCredential,
  withConsoleCredential,
} from "./admin/console-credential.ts";
import { ApiError, errorFromResponse, type Fetch, ParticipantApi } from "./participant-api.ts";
import type {
  AddParticipantRequest,
  AdminAccount,
  AdminSettings,
  AdminSignedIn,
  AdminUser,
  ArmChange,
  AuditEntry,
  CreateExperimentRequest,
  DryRun,
  DryRunCreate,
  Experiment,
  ExperimentCompleteness,
  ExperimentMonitor,
  ExperimentStats,
  ExperimentTimeline,
  Group,
  GroupInput,
  ImportSummary,
  LoginRequest,
  MediaSettings,
  MediaUpload,
  ModelRun,
  NewVideo,
  Participant,
  ParticipantListQuery,
  ParticipantPage,
  ParticipantSummary,
  Readiness,
  Recommender,
  RecommenderCreate,
  RecommenderHealth,
  RecommenderPatch,
  RecommenderTestRequest,
  RecommenderTestResult,
  StoredEvent,
  StudyApplied,
  StudyPlan,
  StudyRequest,
  TrainAccepted,
  UiPreset,
  UiTemplate,
  UiTemplateCreate,
  UiTemplatePatch,
  UpdateExperimentRequest,
  Video,
  VideoList,
  VideoPatch,
  VideoPool,
  VideoUsage,
} from "./types.ts";

export { ApiError, errorFromResponse, isApiError } from "./participant-api.ts";
export type { ArmChange, ReadinessProblem } from "./types.ts";

const enc = encodeURIComponent;

/** The participant endpoints and the admin console's. */
export class ApiClient extends ParticipantApi {
  /** Every request carries the console credential when this page has one (console-credential.ts). */
  constructor(fetchFn?: Fetch) {
    const send: Fetch = fetchFn ?? ((input, init) => fetch(input, init));
    super((input, init) => send(input, withConsoleCredential(init)));
  }

  // --- Admin authentication -------------------------------------------------------------------

  async login(body: LoginRequest): Promise<AdminUser> {
    const signedIn = await this.request<AdminSignedIn>("POST", "/api/v1/auth/login", { body });
    setConsoleCredential(signedIn.console_token);
    return { username: signedIn.username };
  }

  async logout(): Promise<void> {
    await this.request("POST", "/api/v1/auth/logout");
    setConsoleCredential(null);
  }

  /** The signed-in admin; throws a 401 `ApiError` when there is none. */
  /** Admin actions, newest first; `before` (an entry's cursor) pages back. */
  audit(options: { limit?: number; before?: number } = {}): Promise<AuditEntry[]> {
    return this.request("GET", "/api/v1/admin/audit", {
      query: { limit: options.limit, before: options.before },
    });
  }

  listAdmins(): Promise<AdminAccount[]> {
    return this.request("GET", "/api/v1/admin/admins");
  }

  addAdmin(body: { username: string; password: string }): Promise<AdminAccount> {
    return this.request("POST", "/api/v1/admin/admins", { body });
  }

  removeAdmin(username: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/admins/${enc(username)}`);
  }

  changePassword(body: { current_password: string; new_password: string }): Promise<void> {
    return this.request("POST", "/api/v1/auth/password", { body });
  }

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

  /** Changes made to the experiment's arms while it was running, oldest first. */
  armChanges(experimentId: string): Promise<ArmChange[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/changes`);
  }

  /** What keeps the experiment from starting (empty `problems` when it can). */
  experimentReadiness(id: string): Promise<Readiness> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(id)}/readiness`);
  }

  deleteExperiment(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/experiments/${enc(id)}`);
  }

  // --- Study files: the whole study as one document (api.md "Study definitions and packages") -----

  /** What applying the document would create, update, leave alone or refuse; changes nothing. */
  planStudy(body: StudyRequest): Promise<StudyPlan> {
    return this.request("POST", "/api/v1/admin/study-definitions/plan", { body });
  }

  /** Applies the document, all or nothing: into `experiment_id`, or as a new experiment. */
  applyStudy(body: StudyRequest): Promise<StudyApplied> {
    return this.request("POST", "/api/v1/admin/study-definitions/apply", { body });
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

  listUiTemplates(): Promise<UiTemplate[]> {
    return this.request("GET", "/api/v1/admin/ui-templates");
  }

  getUiTemplate(id: string): Promise<UiTemplate> {
    return this.request("GET", `/api/v1/admin/ui-templates/${enc(id)}`);
  }

  createUiTemplate(body: UiTemplateCreate): Promise<UiTemplate> {
    return this.request("POST", "/api/v1/admin/ui-templates", { body });
  }

  updateUiTemplate(id: string, body: UiTemplatePatch): Promise<UiTemplate> {
    return this.request("PATCH", `/api/v1/admin/ui-templates/${enc(id)}`, { body });
  }

  deleteUiTemplate(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/ui-templates/${enc(id)}`);
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

  /**
   * A page of the experiment's participants (api.md "Lists at study scale"): filtered by status, arm,
   * login id text and simulated, in `sort` order; `next_cursor` continues it.
   */
  listParticipants(experimentId: string, query: ParticipantListQuery = {}): Promise<ParticipantPage> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/participants`, {
      query: { ...query, simulated: query.simulated === undefined ? undefined : String(query.simulated) },
    });
  }

  /** One participant as the list shows them; their sessions are those completion counts. */
  getParticipant(userId: string): Promise<ParticipantSummary> {
    return this.request("GET", `/api/v1/admin/participants/${enc(userId)}`);
  }

  /** A participant's events in time order (without the high-frequency and tab-state types). */
  trajectory(userId: string): Promise<StoredEvent[]> {
    return this.request("GET", `/api/v1/admin/participants/${enc(userId)}/trajectory`);
  }

  /** Excludes a participant from analysis (with a reason), or includes them again. */
  setParticipantExcluded(userId: string, excluded: boolean, reason?: string): Promise<void> {
    return this.request("PATCH", `/api/v1/admin/participants/${enc(userId)}`, {
      body: { excluded, ...(reason !== undefined ? { reason } : {}) },
    });
  }

  /** Erases the participant and all their data, the event log included. */
  eraseParticipant(userId: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/participants/${enc(userId)}`);
  }

  addParticipant(experimentId: string, body: AddParticipantRequest): Promise<Participant> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/participants`, { body });
  }

  // --- Results and monitoring ------------------------------------------------------------------------

  /** Counts and rates with 95% intervals, per arm and per recommender. */
  /** Results per arm; `exclusions: "rules"` leaves out whom the experiment's exclusion rules exclude too. */
  stats(experimentId: string, exclusions: "manual" | "rules" = "manual"): Promise<ExperimentStats> {
    const query = exclusions === "rules" ? "?exclusions=rules" : "";
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/stats${query}`);
  }

  /**
   * Gaps in the client's sequence numbers per arm, and a page of participants (`cursor`, at most 1,000);
   * `threshold` flags participants; `flagged` and `clock_off` keep those flagged, or with a clock off.
   */
  completeness(
    experimentId: string,
    query: {
      threshold?: number;
      cursor?: string;
      limit?: number;
      flagged?: boolean;
      clock_off?: boolean;
    } = {},
  ): Promise<ExperimentCompleteness> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/completeness`, {
      query: {
        ...query,
        flagged: query.flagged ? "true" : undefined,
        clock_off: query.clock_off ? "true" : undefined,
      },
    });
  }

  /** Assignment, activity, survey completion and problems of a running study. */
  monitor(experimentId: string): Promise<ExperimentMonitor> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/monitor`);
  }

  /** Counts per arm and time bucket. */
  timeline(experimentId: string): Promise<ExperimentTimeline> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/timeline`);
  }

  /** A recommender's calls, failures, empty results and latency over the last 24 hours. */
  recommenderHealth(key: string, experimentId?: string): Promise<RecommenderHealth> {
    return this.request("GET", `/api/v1/admin/recommenders/${enc(key)}/health`, {
      query: { experiment_id: experimentId },
    });
  }

  /** One real call of a recommender (or of an unsaved config) with a sample request. */
  testRecommender(key: string, body: RecommenderTestRequest): Promise<RecommenderTestResult> {
    return this.request("POST", `/api/v1/admin/recommenders/${enc(key)}/test`, { body });
  }

  // --- Dry runs: simulated participants through every arm -------------------------------------------

  /** Queues a dry run (a draft or running experiment); follow it with `getDryRun`. */
  startDryRun(experimentId: string, body: DryRunCreate): Promise<DryRun> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/dry-runs`, { body });
  }

  /** The experiment's dry runs with their reports, newest first. */
  listDryRuns(experimentId: string): Promise<DryRun[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/dry-runs`);
  }

  /** One dry run: its progress, then its report per arm. */
  getDryRun(experimentId: string, runId: string): Promise<DryRun> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/dry-runs/${enc(runId)}`);
  }

  /** Erases every simulated participant of the experiment; the reports stay. */
  eraseDryRunParticipants(experimentId: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/experiments/${enc(experimentId)}/dry-runs`);
  }

  // --- Learned model: training runs ----------------------------------------------------------------

  /** The experiment's model runs, newest first. */
  listModelRuns(experimentId: string, limit?: number): Promise<ModelRun[]> {
    return this.request("GET", `/api/v1/admin/experiments/${enc(experimentId)}/models`, { query: { limit } });
  }

  /** Queues a training run now (even when nothing changed); answers the run's id. */
  trainModel(experimentId: string): Promise<TrainAccepted> {
    return this.request("POST", `/api/v1/admin/experiments/${enc(experimentId)}/models/train`);
  }

  // --- Video library --------------------------------------------------------------------------------

  listVideos(): Promise<Video[]> {
    return this.request("GET", "/api/v1/admin/videos");
  }

  async createVideos(videos: NewVideo[]): Promise<Video[]> {
    const created = await this.request<VideoList>("POST", "/api/v1/admin/videos", {
      body: { videos },
    });
    return created.videos;
  }

  /** The experiments whose pool holds the video. */
  videoUsage(id: string): Promise<VideoUsage> {
    return this.request("GET", `/api/v1/admin/videos/${enc(id)}/usage`);
  }

  deleteVideo(id: string): Promise<void> {
    return this.request("DELETE", `/api/v1/admin/videos/${enc(id)}`);
  }

  /** The public URL study links are built from, and whether participants elsewhere can open it. */
  settings(): Promise<AdminSettings> {
    return this.request("GET", "/api/v1/admin/settings");
  }

  /** The largest upload accepted, and where uploads are kept. */
  mediaSettings(): Promise<MediaSettings> {
    return this.request("GET", "/api/v1/admin/media/settings");
  }

  /** Changes the fields given (any but the external id). */
  updateVideo(id: string, patch: VideoPatch): Promise<Video> {
    return this.request("PATCH", `/api/v1/admin/videos/${enc(id)}`, { body: patch });
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
 * Sends a body with XMLHttpRequest (fetch reports no upload progress) and answers the JSON reply.
 * `onProgress` sees the upload fraction, then `processing` once the body is sent and the server works
 * on it; `signal` cancels. A dropped connection rejects with `network_error`.
 */
function sendWithProgress<T>(
  url: string,
  body: Blob | FormData,
  contentType: string | null,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    if (contentType) xhr.setRequestHeader("content-type", contentType);
    xhr.setRequestHeader("accept", "application/json");
    const credential = consoleCredential();
    if (credential !== null) xhr.setRequestHeader(CONSOLE_HEADER, credential);
    xhr.upload.onprogress = (event) => {
      onProgress({
        phase: "uploading",
        fraction: event.lengthComputable ? event.loaded / event.total : null,
      });
    };
    xhr.upload.onload = () => onProgress({ phase: "processing" });
    xhr.onerror = () =>
      reject(
        new ApiError(
          0,
          "network_error",
          "The upload failed: the connection to the server was lost. Nothing was kept; try again.",
        ),
      );
    xhr.onabort = () => reject(new ApiError(0, "aborted", "The upload was cancelled. Nothing was kept."));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorFromResponse(xhr.status, xhr.responseText, xhr.getResponseHeader("retry-after")));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText) as T);
      } catch {
        reject(new ApiError(xhr.status, "invalid_response", "The server sent a response that is not JSON."));
      }
    };
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    onProgress({ phase: "uploading", fraction: 0 });
    xhr.send(body);
  });
}

/**
 * Uploads a CSV or JSON file as is to `POST /api/v1/admin/videos/import`; with `update`, rows whose
 * external id exists update that video.
 */
export function importVideos(
  file: File,
  onProgress: (progress: UploadProgress) => void,
  options: { update?: boolean } = {},
): Promise<ImportSummary> {
  const contentType = importContentType(file);
  if (!contentType) {
    return Promise.reject(
      new ApiError(0, "unsupported_file", "Choose a .csv or .json file.", { field: "file" }),
    );
  }
  const url = `/api/v1/admin/videos/import${options.update ? "?update=true" : ""}`;
  return sendWithProgress(url, file, contentType, onProgress);
}

/**
 * Uploads a video (MP4 or WebM), captions (`kind: "captions"` with `lang`) or a thumbnail image to
 * `POST /api/v1/admin/media`; answers where Feedlab serves it.
 */
export function uploadMedia(
  file: Blob,
  filename: string,
  options: { kind?: "video" | "captions" | "thumbnail"; lang?: string; signal?: AbortSignal },
  onProgress: (progress: UploadProgress) => void = () => undefined,
): Promise<MediaUpload> {
  const form = new FormData();
  if (options.kind) form.append("kind", options.kind);
  if (options.lang) form.append("lang", options.lang);
  form.append("file", file, filename);
  return sendWithProgress("/api/v1/admin/media", form, null, onProgress, options.signal);
}
