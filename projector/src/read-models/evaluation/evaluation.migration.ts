import type { Migration } from "@feedlab/sql";
import { requestRebuild } from "../../replay/rebuilds.ts";

/**
 * The evaluation counts (spec: the evaluation reader): per participant, surface and recommender, the
 * events evaluation counts. One row per participant keeps what cluster-robust intervals need.
 */
export const evaluationMigrations: readonly Migration[] = [
  {
    name: "projector/evaluation/001-table",
    async up(db) {
      await db.schema.createTable("evaluation_counts", (t) => {
        t.uuid("experiment_id").notNullable();
        t.uuid("group_id").notNullable();
        t.uuid("user_id").notNullable();
        t.string("surface", 10).notNullable();
        t.string("recommender", 100).notNullable();
        t.bigInteger("impressions").notNullable().defaultTo(0);
        t.bigInteger("feed_clicks").notNullable().defaultTo(0);
        t.bigInteger("plays").notNullable().defaultTo(0);
        t.bigInteger("completions").notNullable().defaultTo(0);
        t.bigInteger("likes").notNullable().defaultTo(0);
        t.timestamp("last_at", { useTz: true }).notNullable();
        t.primary(["experiment_id", "group_id", "user_id", "surface", "recommender"]);
      });
      // Added in 0.2: a database with events gets the counts of its past events too.
      await requestRebuild(db, "evaluation");
    },
    async down(db) {
      await db.schema.dropTableIfExists("evaluation_counts");
    },
  },
  {
    // Results over time (the console's cumulative counts per arm): the same counts per group and
    // minute of receipt.
    name: "projector/evaluation/002-timeline",
    async up(db) {
      await db.schema.createTable("evaluation_timeline", (t) => {
        t.uuid("experiment_id").notNullable();
        t.uuid("group_id").notNullable();
        t.timestamp("minute", { useTz: true }).notNullable();
        t.bigInteger("impressions").notNullable().defaultTo(0);
        t.bigInteger("feed_clicks").notNullable().defaultTo(0);
        t.bigInteger("plays").notNullable().defaultTo(0);
        t.bigInteger("completions").notNullable().defaultTo(0);
        t.bigInteger("likes").notNullable().defaultTo(0);
        t.primary(["experiment_id", "group_id", "minute"]);
      });
      await requestRebuild(db, "evaluation");
    },
    async down(db) {
      await db.schema.dropTableIfExists("evaluation_timeline");
    },
  },
];
