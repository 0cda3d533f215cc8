import type { Migration } from "@feedlab/sql";

/** Training interactions with the spec's weights, summed per (experiment, participant, video). */
export const interactionsMigrations: readonly Migration[] = [
  {
    name: "projector/interactions/001-table",
    async up(db) {
      await db.schema.createTable("interactions", (t) => {
        t.uuid("experiment_id").notNullable();
        t.uuid("user_id").notNullable();
        t.string("video_id", 255).notNullable();
        t.double("weight").notNullable();
        t.integer("events").notNullable();
        t.timestamp("last_at", { useTz: true }).notNullable();
        // Server time of the newest contributing event: the trainer's freshness watermark.
        t.timestamp("last_received_at", { useTz: true }).notNullable();
        t.primary(["experiment_id", "user_id", "video_id"]);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("interactions");
    },
  },
];
