import type { Migration } from "@feedlab/sql";

/**
 * The trainer's tables.
 *
 * - `recommendation_cache` (user -> video) and `item_similarity` (video -> video): the learned model's
 *   output, read by the `learned_model` recommender. Video ids in both are the videos' EXTERNAL ids,
 *   like every read model built from events (`watched_videos`, `video_view_counts`, `co_views`,
 *   `interactions`), so the trainer writes what it reads without a lookup; the API maps them to the
 *   pool's UUIDs in memory. A run replaces an experiment's rows in one transaction.
 * - `model_runs`: one row per training run of an experiment, whatever its outcome (api.md:
 *   `GET /api/v1/admin/experiments/{id}/models`).
 *   - `status`: queued (requested through the API, waiting for the leading trainer) -> running ->
 *     succeeded | failed | skipped (a scheduled run with nothing new since the last model).
 *   - `trigger`: schedule (the trainer's interval) or manual (`POST .../models/train`, which forces a run).
 *   - `watermark` and `source_events`: the freshness of the data a run used: the newest
 *     `interactions.last_received_at` and the sum of `interactions.events` of the experiment. A
 *     scheduled run trains only when either moved since the last succeeded run (the sum also catches
 *     events projected late from a lagging partition, whose receive times may be older than the
 *     watermark).
 *   - `metrics`: offline evaluation against the popularity baseline, sizes and step timings (JSON).
 */
export const trainerMigrations: readonly Migration[] = [
  {
    name: "trainer/001-model-output",
    async up(db) {
      // Collaborative filtering output: the ranked videos of each participant. `rank` starts at 1.
      await db.schema.createTable("recommendation_cache", (t) => {
        t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
        t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
        t.string("video_id", 255).notNullable();
        t.integer("rank").notNullable();
        t.double("score").notNullable();
        t.uuid("model_run_id");
        t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.primary(["experiment_id", "user_id", "rank"]);
        t.unique(["experiment_id", "user_id", "video_id"]);
      });
      // Item-to-item similarity output: for each video, its neighbours with a score (higher is closer).
      await db.schema.createTable("item_similarity", (t) => {
        t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
        t.string("video_id", 255).notNullable();
        t.string("other_video_id", 255).notNullable();
        t.double("score").notNullable();
        t.uuid("model_run_id");
        t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.primary(["experiment_id", "video_id", "other_video_id"]);
      });
    },
    async down(db) {
      for (const table of ["item_similarity", "recommendation_cache"])
        await db.schema.dropTableIfExists(table);
    },
  },
  {
    name: "trainer/002-model-runs",
    async up(db) {
      await db.schema.createTable("model_runs", (t) => {
        t.uuid("id").primary();
        t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
        t.string("status", 20).notNullable();
        t.string("trigger", 20).notNullable();
        t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp("started_at", { useTz: true });
        t.timestamp("finished_at", { useTz: true });
        t.integer("interactions");
        t.integer("users");
        t.integer("videos");
        t.timestamp("watermark", { useTz: true });
        t.bigInteger("source_events");
        t.jsonb("metrics");
        t.text("skipped_reason");
        t.text("error");
        t.index(["experiment_id", "created_at"]);
      });
      await db.raw(
        "ALTER TABLE model_runs ADD CONSTRAINT model_runs_status_check CHECK (status IN ('queued','running','succeeded','failed','skipped'))",
      );
      await db.raw(
        "ALTER TABLE model_runs ADD CONSTRAINT model_runs_trigger_check CHECK (trigger IN ('schedule','manual'))",
      );
      // The trainer's queue: the oldest queued run first.
      await db.raw("CREATE INDEX model_runs_queued_idx ON model_runs (created_at) WHERE status = 'queued'");
    },
    async down(db) {
      await db.schema.dropTableIfExists("model_runs");
    },
  },
];
