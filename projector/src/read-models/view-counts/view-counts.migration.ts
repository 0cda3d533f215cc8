import type { Migration } from "@feedlab/sql";

/** Per-experiment view counts (VIDEO_PLAY, autoplay included by design): the popularity sort key. */
export const viewCountsMigrations: readonly Migration[] = [
  {
    name: "projector/view-counts/001-table",
    async up(db) {
      await db.schema.createTable("video_view_counts", (t) => {
        t.uuid("experiment_id").notNullable();
        t.string("video_id", 255).notNullable();
        t.bigInteger("plays").notNullable();
        t.timestamp("last_played_at", { useTz: true }).notNullable();
        t.primary(["experiment_id", "video_id"]);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("video_view_counts");
    },
  },
];
