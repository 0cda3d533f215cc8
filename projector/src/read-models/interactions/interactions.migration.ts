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
  {
    // A simulated participant's interactions (a dry run, issue 36): kept, but the trainer trains on
    // real participants' alone (api.md, "Simulated participants"). Rows from before were all real.
    name: "projector/interactions/002-simulated",
    async up(db) {
      await db.schema.alterTable("interactions", (t) => {
        t.boolean("simulated").notNullable().defaultTo(false);
      });
    },
    async down(db) {
      await db.schema.alterTable("interactions", (t) => {
        t.dropColumn("simulated");
      });
    },
  },
];
