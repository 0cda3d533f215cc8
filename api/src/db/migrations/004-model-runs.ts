import type { Knex } from "knex";

/**
 * Model runs of the learned model: one row per training run of an experiment, whatever its outcome
 * (api.md: `GET /api/v1/admin/experiments/{id}/models`).
 *
 * - `status`: queued (requested through the API, waiting for the leading trainer) -> running ->
 *   succeeded | failed | skipped (a scheduled run with nothing new since the last model).
 * - `trigger`: schedule (the trainer's interval) or manual (`POST .../models/train`, which forces a run).
 * - `watermark` and `source_events`: the freshness of the data a run used: the newest
 *   `interactions.last_received_at` and the sum of `interactions.events` of the experiment. A scheduled
 *   run trains only when either moved since the last succeeded run (the sum also catches events
 *   projected late from a lagging partition, whose receive times may be older than the watermark).
 * - `metrics`: offline evaluation against the popularity baseline, sizes and step timings (JSON).
 */
export async function up(db: Knex): Promise<void> {
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
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("model_runs");
}
