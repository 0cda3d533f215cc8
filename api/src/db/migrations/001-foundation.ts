import type { Knex } from "knex";

/** Foundation tables: admins and auth sessions, experiments, groups, videos, pools, participants, sessions. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("app_settings", (t) => {
    t.text("key").primary();
    t.jsonb("value").notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable("admins", (t) => {
    t.uuid("id").primary();
    t.string("username", 64).notNullable().unique();
    t.text("password_hash").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable("experiments", (t) => {
    t.uuid("id").primary();
    t.string("name", 255).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.string("status", 20).notNullable().defaultTo("draft");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    "ALTER TABLE experiments ADD CONSTRAINT experiments_status_check CHECK (status IN ('draft','running','paused','completed'))",
  );

  await db.schema.createTable("groups", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("name", 255).notNullable();
    t.double("weight").notNullable().defaultTo(1);
    t.string("algorithm_feed", 100).notNullable();
    t.string("algorithm_watch", 100).notNullable();
    t.string("ui_feed", 100).notNullable();
    t.string("ui_watch", 100).notNullable();
    t.jsonb("recommender_params").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(["experiment_id"]);
  });
  await db.raw("ALTER TABLE groups ADD CONSTRAINT groups_weight_check CHECK (weight > 0)");

  await db.schema.createTable("videos", (t) => {
    t.uuid("id").primary();
    t.string("external_id", 255).notNullable().unique();
    t.text("url").notNullable();
    t.text("resolved_url").notNullable();
    t.string("type", 20).notNullable();
    t.text("title").notNullable();
    t.text("channel_name");
    t.text("category");
    t.text("description");
    t.jsonb("tags").notNullable().defaultTo("[]");
    t.double("duration_seconds");
    t.bigInteger("view_count");
    t.text("thumbnail_url");
    t.timestamp("published_at", { useTz: true });
    t.jsonb("comments").notNullable().defaultTo("[]");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    "ALTER TABLE videos ADD CONSTRAINT videos_type_check CHECK (type IN ('native','youtube','vimeo'))",
  );

  await db.schema.createTable("experiment_videos", (t) => {
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.uuid("video_id").notNullable().references("videos.id").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.primary(["experiment_id", "video_id"]);
    t.index(["video_id"]);
  });

  await db.schema.createTable("users", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("login_id", 255).notNullable();
    t.uuid("group_id").notNullable().references("groups.id").onDelete("RESTRICT");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(["experiment_id", "login_id"]);
    t.index(["group_id"]);
  });

  await db.schema.createTable("sessions", (t) => {
    t.uuid("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("ended_at", { useTz: true });
    t.index(["user_id", "created_at"]);
  });

  // Credentials of admins and participants. Only a SHA-256 of the cookie token is stored.
  await db.schema.createTable("auth_sessions", (t) => {
    t.string("token_hash", 64).primary();
    t.string("role", 20).notNullable();
    t.uuid("admin_id").references("admins.id").onDelete("CASCADE");
    t.uuid("user_id").references("users.id").onDelete("CASCADE");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("expires_at", { useTz: true }).notNullable();
  });
  await db.raw(
    `ALTER TABLE auth_sessions ADD CONSTRAINT auth_sessions_subject_check CHECK (
       (role = 'admin' AND admin_id IS NOT NULL AND user_id IS NULL) OR
       (role = 'participant' AND user_id IS NOT NULL AND admin_id IS NULL))`,
  );
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    "auth_sessions",
    "sessions",
    "users",
    "experiment_videos",
    "videos",
    "groups",
    "experiments",
    "admins",
    "app_settings",
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
