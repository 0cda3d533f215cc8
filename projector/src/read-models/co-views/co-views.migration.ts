import type { Migration } from "@feedlab/sql";
import { requestRebuild } from "../../replay/rebuilds.ts";

/** Co-views: pairs of videos watched by the same participant (video_a < video_b), with a count. */
export const coViewsMigrations: readonly Migration[] = [
  {
    name: "projector/co-views/001-table",
    async up(db) {
      await db.schema.createTable("co_views", (t) => {
        t.uuid("experiment_id").notNullable();
        t.string("video_a", 255).notNullable();
        t.string("video_b", 255).notNullable();
        t.integer("count").notNullable();
        t.primary(["experiment_id", "video_a", "video_b"]);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("co_views");
    },
  },
  {
    // A video's most co-viewed partners are read from both sides of the pair (video_a < video_b):
    // top-N by count through an index, never all of a popular video's pairs.
    name: "projector/co-views/002-top-indexes",
    async up(db) {
      await db.raw("CREATE INDEX co_views_a_top_idx ON co_views (experiment_id, video_a, count DESC)");
      await db.raw("CREATE INDEX co_views_b_top_idx ON co_views (experiment_id, video_b, count DESC)");
    },
    async down(db) {
      await db.raw("DROP INDEX IF EXISTS co_views_b_top_idx");
      await db.raw("DROP INDEX IF EXISTS co_views_a_top_idx");
    },
  },
  {
    // The spec's readers table: co-views come from any event whose video_id is not null, not only
    // from watches. Each participant's videos are kept here (the first event with each), so a video
    // pairs once with each other video of the participant.
    name: "projector/co-views/003-any-event",
    async up(db) {
      await db.schema.createTable("co_view_videos", (t) => {
        t.uuid("experiment_id").notNullable();
        t.uuid("user_id").notNullable();
        t.string("video_id", 255).notNullable();
        t.primary(["user_id", "video_id"]);
      });
      // Past events count too: rebuild the co-views from the log.
      await requestRebuild(db, "co_views");
    },
    async down(db) {
      await db.schema.dropTableIfExists("co_view_videos");
    },
  },
];
