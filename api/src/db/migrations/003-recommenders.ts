import type { Knex } from "knex";

/**
 * The recommender registry and the learned-model output tables.
 *
 * - `recommenders`: registered external_http recommenders, plus one row per built-in whose label,
 *   description or category an admin changed (kind `builtin`; the built-ins themselves are defined
 *   in code, so a built-in without a row is served with its defaults).
 * - `recommendation_cache` (user -> video) and `item_similarity` (video -> video): written by the
 *   trainer, read by the `learned_model` recommender. Video ids in both are the videos' EXTERNAL ids,
 *   like every read model built from events (`watched_videos`, `video_view_counts`, `co_views`,
 *   `interactions`), so the trainer writes what it reads without a lookup; the API maps them to the
 *   pool's UUIDs in memory. A trainer run replaces an experiment's rows in one transaction.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("recommenders", (t) => {
    t.string("key", 64).primary();
    t.string("kind", 32).notNullable();
    t.string("label", 255).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.string("category", 100).notNullable().defaultTo("");
    t.boolean("supports_feed").notNullable();
    t.boolean("supports_watch").notNullable();
    t.jsonb("config").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    "ALTER TABLE recommenders ADD CONSTRAINT recommenders_kind_check CHECK (kind IN ('builtin','external_http'))",
  );

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

  // The similarity built-in reads a video's most co-viewed partners from both sides of the pair
  // (video_a < video_b): top-N by count through an index, never all of a popular video's pairs.
  await db.raw("CREATE INDEX co_views_a_top_idx ON co_views (experiment_id, video_a, count DESC)");
  await db.raw("CREATE INDEX co_views_b_top_idx ON co_views (experiment_id, video_b, count DESC)");
}

export async function down(db: Knex): Promise<void> {
  await db.raw("DROP INDEX IF EXISTS co_views_b_top_idx");
  await db.raw("DROP INDEX IF EXISTS co_views_a_top_idx");
  for (const table of ["item_similarity", "recommendation_cache", "recommenders"]) {
    await db.schema.dropTableIfExists(table);
  }
}
