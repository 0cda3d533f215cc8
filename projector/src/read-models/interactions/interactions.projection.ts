import { ENDED_MIN_RATIO, INTERACTION_WEIGHTS, type LoggedEvent } from "@feedlab/schemas";
import type { Projection } from "../../read-model.ts";
import { eraseInteractions } from "./interactions.erase.ts";
import { interactionsMigrations } from "./interactions.migration.ts";

/** The training weight of an event (spec: learned-model training extraction), or 0. */
function interactionWeight(e: LoggedEvent): number {
  if (e.event_type === "VIDEO_WATCHED_1S") return INTERACTION_WEIGHTS.VIDEO_WATCHED_1S;
  if (e.event_type === "LIKE") return INTERACTION_WEIGHTS.LIKE;
  if (e.event_type === "VIDEO_ENDED" && (e.watch_ratio ?? 0) > ENDED_MIN_RATIO)
    return INTERACTION_WEIGHTS.VIDEO_ENDED;
  return 0;
}

/**
 * Training interactions: per (experiment, user, video) the summed weights of the spec's events. A
 * simulated participant's rows are flagged `simulated` (set when the row is made: a participant is
 * simulated or not for good), so the trainer can leave them out (api.md, "Simulated participants").
 */
export const interactionsProjection: Projection = {
  name: "interactions",
  // VIDEO_ENDED only above ENDED_MIN_RATIO (interactionWeight).
  canHandle: ["VIDEO_WATCHED_1S", "LIKE", "VIDEO_ENDED"],
  tables: ["interactions"],
  erase: eraseInteractions,
  migrations: interactionsMigrations,
  project: (e) => {
    const weight = interactionWeight(e);
    if (weight === 0 || e.video_id === null) return [];
    return [
      {
        kind: "accumulate",
        table: "interactions",
        key: { experiment_id: e.experiment_id, user_id: e.user_id, video_id: e.video_id },
        add: { weight, events: 1 },
        max: { last_at: e.timestamp, last_received_at: e.received_at },
        init: { simulated: e.simulated === true },
      },
    ];
  },
};
