import type { Projection } from "../../read-model.ts";
import { eraseViewCounts } from "./view-counts.erase.ts";
import { viewCountsMigrations } from "./view-counts.migration.ts";

/**
 * Per-experiment view counts: every VIDEO_PLAY counts, autoplay included by design (spec), except a
 * simulated participant's (api.md, "Simulated participants"): the counts are popularity and the
 * cards' view counts, which real participants are shown.
 */
export const viewCountsProjection: Projection = {
  name: "view_counts",
  canHandle: ["VIDEO_PLAY"],
  tables: ["video_view_counts"],
  migrations: viewCountsMigrations,
  erase: eraseViewCounts,
  project: (e) => {
    if (e.event_type !== "VIDEO_PLAY" || e.video_id === null || e.simulated === true) return [];
    return [
      {
        kind: "accumulate",
        table: "video_view_counts",
        key: { experiment_id: e.experiment_id, video_id: e.video_id },
        add: { plays: 1 },
        max: { last_played_at: e.received_at },
      },
    ];
  },
};
