import type { Migration } from "@feedlab/sql";

/** Watched history (VIDEO_WATCHED_1S or VIDEO_ENDED) for feed exclusion; video ids are external ids. */
export const watchedMigrations: readonly Migration[] = [
  {
    name: "projector/watched/001-table",
    async up(db) {
      await db.schema.createTable("watched_videos", (t) => {
        t.uuid("user_id").notNullable();
        t.string("video_id", 255).notNullable();
        t.uuid("experiment_id").notNullable();
        t.timestamp("first_watched_at", { useTz: true }).notNullable();
        t.integer("log_partition").notNullable();
        t.bigInteger("log_offset").notNullable();
        t.primary(["user_id", "video_id"]);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("watched_videos");
    },
  },
];
