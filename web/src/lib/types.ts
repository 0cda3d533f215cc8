/**
 * The HTTP resource types the web app reads and writes: the server's own schemas (`@feedlab/schemas`),
 * under the names the console uses. Type-only imports, so no validator code reaches the browser;
 * the enumerations come from the schema package's plain-value module.
 */
import type { FeedQuery as ServerFeedQuery } from "@feedlab/schemas";

export type {
  AdminMe as AdminUser,
  Comment as VideoComment,
  ErrorBody as ApiErrorBody,
  Experiment,
  ExperimentCompleteness,
  ExperimentCreate as CreateExperimentRequest,
  ExperimentMonitor,
  ExperimentPatch as UpdateExperimentRequest,
  ExperimentStats,
  ExperimentStatus,
  ExperimentTimeline,
  ExternalHttpConfigInput as ExternalHttpConfig,
  FeedPage,
  Group,
  GroupCreate as GroupInput,
  GroupStats,
  ImportRejection,
  ImportSummary,
  JoinBody as JoinRequest,
  JoinResult,
  LoginBody as LoginRequest,
  Me as ParticipantMe,
  ModelMetrics,
  ModelRun,
  ModelRunStatus,
  Participant,
  ParticipantCreate as AddParticipantRequest,
  ParticipantSummary,
  ParticipantUiTemplate,
  PoolBody as VideoPool,
  Rate,
  RecommenderCreate,
  RecommenderHealth,
  RecommenderPatch,
  RecommenderTestRequest,
  RecommenderTestResult,
  RecommenderUsage,
  RecommenderView as Recommender,
  StoredEvent,
  SurfaceConfig,
  Timestamp,
  TrainAccepted,
  UiPreset,
  UiTemplate,
  UiTemplateCreate,
  UiTemplatePatch,
  Video,
  VideoInput as NewVideo,
  VideoList,
  VideoType,
} from "@feedlab/schemas";
export { EXPERIMENT_STATUSES, UI_NONE } from "@feedlab/schemas/http/enums.ts";

/** The feed's query as a client sends it: `limit` and `offset` have server defaults. */
export type FeedQuery = Pick<ServerFeedQuery, "session_id" | "after"> &
  Partial<Pick<ServerFeedQuery, "limit" | "offset">>;
