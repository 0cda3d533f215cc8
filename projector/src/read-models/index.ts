import type { Migration } from "@feedlab/sql";
import type { Projection } from "../read-model.ts";
import { coViewsProjection } from "./co-views/co-views.projection.ts";
import { evaluationProjection } from "./evaluation/evaluation.projection.ts";
import { eventsProjection } from "./events/events.projection.ts";
import { interactionsProjection } from "./interactions/interactions.projection.ts";
import { qualityProjection } from "./quality/quality.projection.ts";
import { responseLatencyProjection } from "./response-latency/response-latency.projection.ts";
import { sessionActivityProjection } from "./session-activity/session-activity.projection.ts";
import { viewCountsProjection } from "./view-counts/view-counts.projection.ts";
import { watchedProjection } from "./watched/watched.projection.ts";

/**
 * Every read model's projection, the events store first (it gates the others), and each after the
 * projections it requires.
 */
export const PROJECTIONS: readonly Projection[] = [
  eventsProjection,
  watchedProjection,
  viewCountsProjection,
  interactionsProjection,
  sessionActivityProjection,
  evaluationProjection,
  coViewsProjection,
  responseLatencyProjection,
  qualityProjection,
];

/** The read models' schema changes, read model by read model in the order above. */
export const READ_MODEL_MIGRATIONS: readonly Migration[] = PROJECTIONS.flatMap((p) => p.migrations);

export * from "./co-views/co-views.projection.ts";
export * from "./co-views/co-views.queries.ts";
export * from "./evaluation/evaluation.projection.ts";
export * from "./evaluation/evaluation.queries.ts";
export * from "./events/events.projection.ts";
export * from "./events/events.queries.ts";
export * from "./interactions/interactions.projection.ts";
export * from "./interactions/interactions.queries.ts";
export * from "./quality/quality.projection.ts";
export * from "./quality/quality.queries.ts";
export * from "./response-latency/response-latency.projection.ts";
export * from "./response-latency/response-latency.queries.ts";
export * from "./session-activity/session-activity.projection.ts";
export * from "./session-activity/session-activity.queries.ts";
export * from "./view-counts/view-counts.projection.ts";
export * from "./view-counts/view-counts.queries.ts";
export * from "./watched/watched.projection.ts";
export * from "./watched/watched.queries.ts";
