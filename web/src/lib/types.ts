/**
 * TypeScript shapes of the API resources the web app reads and writes, written from the HTTP contract
 * (`/work/shared/api.md`). Timestamps are ISO 8601 UTC strings and ids are UUID strings throughout.
 * Fields the contract leaves open are typed as optional so a server that omits them still type-checks.
 */

/** ISO 8601 UTC timestamp. */
export type Timestamp = string;

/** The error body every non-2xx JSON response carries (api.md, Conventions). */
export interface ApiErrorBody {
  error: {
    /** Stable snake_case code, e.g. `not_found`, `unknown_recommender`, `experiment_not_open`. */
    code: string;
    message: string;
    /** For validation errors `{field: "algorithm_config.feed", ...}`, or a list of problems. */
    details?: unknown;
  };
}

// ---------------------------------------------------------------------------------------------------
// Auth

export interface AdminUser {
  username: string;
}

export interface LoginRequest {
  username: string;
  password: string;
}

// ---------------------------------------------------------------------------------------------------
// Experiments, groups

export const EXPERIMENT_STATUSES = ["draft", "running", "paused", "completed"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export interface Experiment {
  id: string;
  name: string;
  description: string | null;
  status: ExperimentStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CreateExperimentRequest {
  name: string;
  description?: string;
}

export type UpdateExperimentRequest = Partial<Pick<Experiment, "name" | "description" | "status">>;

/** A recommender key per page: `feed` serves the feed page, `watch` the watch page's related list. */
export interface SurfaceConfig {
  feed: string;
  watch: string;
}

/** An arm of an experiment: its recommendation policy and its user interface are independent axes. */
export interface Group {
  id: string;
  experiment_id?: string;
  name: string;
  weight: number;
  /** Recommender keys (`random`, `popularity`, ..., or a registered external key). */
  algorithm_config: SurfaceConfig;
  /** UI keys: a bundled preset key, a UI template UUID, or `none` (bypass the page). */
  ui_config: SurfaceConfig;
  recommender_params?: Record<string, Record<string, unknown>>;
  created_at?: Timestamp;
  updated_at?: Timestamp;
}

export interface GroupInput {
  name: string;
  weight?: number;
  algorithm_config: SurfaceConfig;
  ui_config: SurfaceConfig;
  recommender_params?: Record<string, Record<string, unknown>>;
}

// ---------------------------------------------------------------------------------------------------
// Recommenders, UI presets

export interface Recommender {
  key: string;
  /** `builtin` for the five built-ins, `external_http` for registered services. */
  kind: string;
  label: string;
  description?: string | null;
  category?: string | null;
  supports_feed: boolean;
  supports_watch: boolean;
  config?: Record<string, unknown>;
  /** Null for a built-in never edited. */
  created_at?: Timestamp | null;
  updated_at?: Timestamp | null;
  /** Groups whose algorithm_config names this recommender. */
  used_by?: RecommenderUsage[];
}

/** A group that uses a recommender, and on which pages. */
export interface RecommenderUsage {
  group_id: string;
  group_name: string;
  experiment_id: string;
  experiment_name: string;
  pages: ("feed" | "watch")[];
}

/** The config of an external_http recommender (every field but `url` has a server default). */
export interface ExternalHttpConfig {
  url: string;
  method?: "POST" | "GET";
  timeout_seconds?: number;
  headers?: Record<string, string>;
  /** null restores the default body (PATCH only). */
  body_template?: Record<string, unknown> | null;
  video_id_path?: string;
}

/** `POST /api/v1/admin/recommenders`. */
export interface RecommenderCreate {
  key: string;
  kind: "external_http";
  label: string;
  description?: string;
  category?: string;
  supports_feed?: boolean;
  supports_watch?: boolean;
  config: ExternalHttpConfig;
}

/** `PATCH /api/v1/admin/recommenders/{key}`: built-ins take label, description and category only. */
export type RecommenderPatch = Partial<
  Pick<RecommenderCreate, "label" | "description" | "category" | "supports_feed" | "supports_watch">
> & { config?: Partial<ExternalHttpConfig> };

export interface UiPreset {
  /** `<style>-<device>`, e.g. `classic-desktop`. */
  key: string;
  style: string;
  device: string;
}

/** The UI key that bypasses a page (feed: straight to the first video). Accepted wherever a UI key is. */
export const UI_NONE = "none";

// ---------------------------------------------------------------------------------------------------
// Videos

export type VideoType = "native" | "youtube" | "vimeo";

export interface VideoComment {
  author: string;
  text: string;
}

export interface Video {
  id: string;
  external_id: string;
  url: string;
  /** The URL the player loads: a direct media file for `native`. */
  resolved_url: string;
  type: VideoType;
  title: string;
  channel_name: string | null;
  category: string | null;
  description: string | null;
  tags: string[] | null;
  duration_seconds: number | null;
  view_count: number | null;
  thumbnail_url: string | null;
  published_at: Timestamp | null;
  comments: VideoComment[] | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface NewVideo {
  external_id: string;
  url: string;
  title: string;
  channel_name?: string;
  category?: string;
  description?: string;
  tags?: string[];
  duration_seconds?: number;
  view_count?: number;
  thumbnail_url?: string;
  published_at?: Timestamp;
  comments?: VideoComment[];
}

/** The summary of `POST /api/v1/admin/videos/import`. */
export interface ImportSummary {
  imported: number;
  rejected: ImportRejection[];
  /** Columns or keys of the file the importer does not know and skipped (not pinned by api.md). */
  ignored_columns?: string[];
}

export interface ImportRejection {
  /** 1-based row (CSV data row or JSON array index, as the server reports it). */
  row: number;
  external_id?: string;
  code: string;
  message: string;
  field?: string;
}

export interface VideoPool {
  video_ids: string[];
}

// ---------------------------------------------------------------------------------------------------
// Participants

export interface Participant {
  user_id: string;
  login_id: string;
  group_id: string | null;
  /** Not pinned by api.md; shown when the server sends it. */
  group_name?: string | null;
  created_at?: Timestamp;
}

export interface AddParticipantRequest {
  login_id: string;
  group_id?: string;
}

export interface JoinRequest {
  experiment_id: string;
  login_id: string;
}

export interface JoinResult {
  user_id: string;
  login_id: string;
  experiment_id: string;
  group_id: string;
}

/** `GET /api/v1/me`: the signed-in participant and the configuration of their group. */
export interface ParticipantMe {
  user_id: string;
  login_id: string;
  experiment_id: string;
  experiment_status: ExperimentStatus;
  group_id: string;
  algorithm_config: SurfaceConfig;
  ui_config: SurfaceConfig;
}

// ---------------------------------------------------------------------------------------------------
// Feed

export interface FeedPage {
  items: Video[];
  has_more: boolean;
  next_offset: number | null;
  /** The recommender key that produced the page. */
  recommender: string;
}

export interface FeedQuery {
  session_id: string;
  limit?: number;
  offset?: number;
  /** A log position token from `POST /api/v1/events`, to read the participant's own writes. */
  after?: string;
}

// ---------------------------------------------------------------------------------------------------
// Events

/** One stored event, as the trajectory and the export give it (api.md). */
export interface StoredEvent {
  event_id: string;
  session_id: string;
  user_id: string;
  login_id: string;
  group_id: string;
  event_type: string;
  video_id: string | null;
  timestamp: Timestamp;
  received_at: Timestamp;
  watch_ratio: number | null;
  watch_duration: number | null;
  position_in_feed: number | null;
  algorithm_feed: string;
  algorithm_watch: string;
  payload: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------
// Learned model: training runs (api.md, "Data, evaluation and training")

export type ModelRunStatus = "queued" | "running" | "succeeded" | "failed" | "skipped";

/** Offline evaluation (leave-last-out, against popularity on the same split), sizes and step timings. */
export interface ModelMetrics {
  recall_at_10: number | null;
  ndcg_at_10: number | null;
  baseline_recall_at_10: number | null;
  baseline_ndcg_at_10: number | null;
  test_users: number;
  eligible_users?: number;
  train_interactions?: number;
  factors: number;
  iterations: number;
  regularization?: number;
  alpha?: number;
  workers?: number;
  recommendations?: number;
  similarities?: number;
  evaluation_note?: string;
  /** Milliseconds per step (freshness, extract, ..., write, total). */
  timings_ms: Record<string, number>;
}

/** One training run of an experiment's learned model. */
export interface ModelRun {
  id: string;
  experiment_id?: string;
  status: ModelRunStatus;
  trigger: "schedule" | "manual";
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  interactions: number | null;
  users: number | null;
  videos: number | null;
  watermark?: Timestamp | null;
  metrics: ModelMetrics | null;
  skipped_reason: string | null;
  error?: string | null;
}
