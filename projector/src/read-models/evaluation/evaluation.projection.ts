import type { LoggedEvent } from "@feedlab/schemas";
import type { RowOp } from "../../ops.ts";
import type { Projection } from "../../read-model.ts";
import { EVALUATION_COUNTS } from "./evaluation.counts.ts";
import { eraseEvaluation } from "./evaluation.erase.ts";
import { evaluationMigrations } from "./evaluation.migration.ts";

/**
 * The surface an event counts for, and so the recommender (stamped at intake): impressions by the
 * list they were in (`related` is the watch page's), feed clicks on the feed; plays, completions
 * and likes happen on the watch page and count for it.
 */
function surfaceOf(e: LoggedEvent): "feed" | "watch" {
  if (e.event_type === "IMPRESSION") return e.payload.context === "related" ? "watch" : "feed";
  return e.event_type === "FEED_CLICK" ? "feed" : "watch";
}

/** The minute an ISO 8601 UTC time falls in, as an ISO timestamp. */
export const minuteOf = (iso: string): string => `${new Date(iso).toISOString().slice(0, 16)}:00.000Z`;

/**
 * Per participant, surface and recommender: impressions, feed clicks, plays, completions, likes;
 * and the same counts per group and minute (results over time). A simulated participant's events
 * (api.md, "Simulated participants") keep their per-participant rows, which the api filters by
 * participant, but count in no minute: the timeline is per arm, with no participant to filter by.
 */
export const evaluationProjection: Projection = {
  name: "evaluation",
  // The keys of EVALUATION_COUNTS.
  canHandle: ["IMPRESSION", "FEED_CLICK", "VIDEO_PLAY", "VIDEO_ENDED", "LIKE"],
  tables: ["evaluation_counts", "evaluation_timeline"],
  migrations: evaluationMigrations,
  erase: eraseEvaluation,
  project: (e): RowOp[] => {
    const column = EVALUATION_COUNTS[e.event_type as keyof typeof EVALUATION_COUNTS];
    // Evaluation compares arms: an event sent before its participant had one counts in none.
    if (!column || e.group_id === null) return [];
    const surface = surfaceOf(e);
    const ops: RowOp[] = [
      {
        kind: "accumulate",
        table: "evaluation_counts",
        key: {
          experiment_id: e.experiment_id,
          group_id: e.group_id,
          user_id: e.user_id,
          surface,
          recommender: surface === "feed" ? e.algorithm_feed : e.algorithm_watch,
        },
        add: { [column]: 1 },
        max: { last_at: e.received_at },
      },
    ];
    if (e.simulated !== true)
      ops.push({
        kind: "accumulate",
        table: "evaluation_timeline",
        key: { experiment_id: e.experiment_id, group_id: e.group_id, minute: minuteOf(e.received_at) },
        add: { [column]: 1 },
      });
    return ops;
  },
};
