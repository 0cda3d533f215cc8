import { WATCHED_TYPES } from "@feedlab/schemas";
import type { Projection } from "./projection.ts";

/**
 * Watched history for feed exclusion (spec: a video counts as watched after at least 1 s played, or
 * when it ended: VIDEO_WATCHED_1S or VIDEO_ENDED), and co-view counts from each first watch.
 */
export const watchedProjection: Projection = {
  name: "watched",
  tables: ["watched_videos", "co_views"],
  project: (e, place) => {
    if (!WATCHED_TYPES.has(e.event_type) || e.video_id === null) return [];
    return [
      {
        kind: "insert",
        table: "watched_videos",
        key: ["user_id", "video_id"],
        row: {
          user_id: e.user_id,
          video_id: e.video_id,
          experiment_id: e.experiment_id,
          first_watched_at: e.received_at,
          log_partition: place.partition,
          log_offset: place.offset,
        },
      },
      { kind: "coview", experiment_id: e.experiment_id, user_id: e.user_id, video_id: e.video_id },
    ];
  },
};
