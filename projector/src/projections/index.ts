import { eventsProjection } from "./events.projection.ts";
import { interactionsProjection } from "./interactions.projection.ts";
import type { Projection } from "./projection.ts";
import { sessionActivityProjection } from "./session-activity.projection.ts";
import { viewCountsProjection } from "./view-counts.projection.ts";
import { watchedProjection } from "./watched.projection.ts";

export type { Projection } from "./projection.ts";

/** Every projection, the events store first (it gates the others). */
export const PROJECTIONS: readonly Projection[] = [
  eventsProjection,
  watchedProjection,
  viewCountsProjection,
  interactionsProjection,
  sessionActivityProjection,
];

export {
  eventsProjection,
  interactionsProjection,
  sessionActivityProjection,
  viewCountsProjection,
  watchedProjection,
};
