import { WATCHED_TYPES } from "@feedlab/schemas";
import type { Projection } from "../../read-model.ts";
import { eraseWatched } from "./watched.erase.ts";
import { watchedMigrations } from "./watched.migration.ts";

/**
 * Watched history for feed exclusion (spec: a video counts as watched after at least 1 s played, or
 * when it ended: VIDEO_WATCHED_1S or VIDEO_ENDED). The row keeps the earliest watch (by arrival, then
 * place in the log) and where it sits in the log; co-views pair each first watch (see ../co-views).
 */
export const watchedProjection: Projection = {
  name: "watched",
  canHandle: ["VIDEO_WATCHED_1S", "VIDEO_ENDED"],
  tables: ["watched_videos"],
  erase: eraseWatched,
  migrations: watchedMigrations,
  project: (e, place) => {
    if (!WATCHED_TYPES.has(e.event_type) || e.video_id === null) return [];
    return [
      {
        kind: "insert",
        table: "watched_videos",
        key: ["user_id", "video_id"],
        // The earliest watch wins, whatever order partitions are applied in (live and replay agree).
        least: ["first_watched_at", "log_partition", "log_offset"],
        row: {
          user_id: e.user_id,
          video_id: e.video_id,
          experiment_id: e.experiment_id,
          first_watched_at: e.received_at,
          log_partition: place.partition,
          log_offset: place.offset,
        },
      },
    ];
  },
};
