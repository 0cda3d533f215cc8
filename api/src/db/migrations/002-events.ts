import type { Knex } from "knex";

/**
 * The embedded event log, consumer checkpoints, dead letters, and the read models the projector
 * builds. Read models are disposable (`feedlab replay` rebuilds them from the log); video ids in
 * them are the events' external ids (spec: Event record).
 */
export async function up(db: Knex): Promise<void> {
  // The embedded event log: append-only. `position` orders records; event_id is unique (dedupe).
  await db.raw(`CREATE TABLE event_log (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id uuid NOT NULL UNIQUE,
    session_id uuid NOT NULL,
    record bytea NOT NULL,
    appended_at timestamptz NOT NULL DEFAULT now()
  )`);

  // Offsets a consumer has applied, written in the same transaction as the rows they produced.
  await db.schema.createTable("consumer_checkpoints", (t) => {
    t.string("consumer", 100).notNullable();
    t.integer("partition").notNullable();
    t.bigInteger("log_offset").notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(["consumer", "partition"]);
  });

  // Records the projector could not apply, with the reason; the stream moves on past them.
  await db.schema.createTable("dead_letters", (t) => {
    t.bigIncrements("id").primary();
    t.string("consumer", 100).notNullable();
    t.integer("partition").notNullable();
    t.bigInteger("log_offset").notNullable();
    t.uuid("event_id");
    t.text("reason").notNullable();
    t.binary("record");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(["consumer", "partition", "log_offset"]);
  });

  // The events store: every wire field, the stamped columns, payload as JSONB.
  await db.schema.createTable("events", (t) => {
    t.uuid("event_id").primary();
    t.uuid("session_id").notNullable();
    t.uuid("user_id").notNullable();
    t.string("login_id", 255).notNullable();
    t.uuid("experiment_id").notNullable();
    t.uuid("group_id").notNullable();
    t.string("event_type", 64).notNullable();
    t.string("video_id", 255);
    t.timestamp("timestamp", { useTz: true }).notNullable();
    t.timestamp("received_at", { useTz: true }).notNullable();
    t.double("watch_ratio");
    t.double("watch_duration");
    t.integer("position_in_feed");
    t.string("algorithm_feed", 100).notNullable();
    t.string("algorithm_watch", 100).notNullable();
    t.jsonb("payload").notNullable();
    t.bigInteger("seq");
    // Where the first copy of this event sits in the log: other projections apply an event only
    // at that position, so a repeated record (or a replay) never counts twice.
    t.integer("log_partition").notNullable();
    t.bigInteger("log_offset").notNullable();
    t.index(["user_id", "timestamp"], "events_user_time_idx");
    t.index(["experiment_id", "timestamp"], "events_experiment_time_idx");
  });

  // Watched history (VIDEO_WATCHED_1S or VIDEO_ENDED): feed exclusion.
  await db.schema.createTable("watched_videos", (t) => {
    t.uuid("user_id").notNullable();
    t.string("video_id", 255).notNullable();
    t.uuid("experiment_id").notNullable();
    t.timestamp("first_watched_at", { useTz: true }).notNullable();
    t.integer("log_partition").notNullable();
    t.bigInteger("log_offset").notNullable();
    t.primary(["user_id", "video_id"]);
  });

  // Per-experiment view counts (VIDEO_PLAY, autoplay included by design): popularity.
  await db.schema.createTable("video_view_counts", (t) => {
    t.uuid("experiment_id").notNullable();
    t.string("video_id", 255).notNullable();
    t.bigInteger("plays").notNullable();
    t.timestamp("last_played_at", { useTz: true }).notNullable();
    t.primary(["experiment_id", "video_id"]);
  });

  // Training interactions with the spec's weights, summed per (user, video).
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

  // Co-views: pairs of videos watched by the same participant (video_a < video_b).
  await db.schema.createTable("co_views", (t) => {
    t.uuid("experiment_id").notNullable();
    t.string("video_a", 255).notNullable();
    t.string("video_b", 255).notNullable();
    t.integer("count").notNullable();
    t.primary(["experiment_id", "video_a", "video_b"]);
  });

  // Session activity: first and last event, count. A session without events for the idle
  // timeout counts as ended.
  await db.schema.createTable("session_activity", (t) => {
    t.uuid("session_id").primary();
    t.uuid("user_id").notNullable();
    t.uuid("experiment_id").notNullable();
    t.timestamp("first_event_at", { useTz: true }).notNullable();
    t.timestamp("last_event_at", { useTz: true }).notNullable();
    t.timestamp("last_received_at", { useTz: true }).notNullable();
    t.integer("event_count").notNullable();
    t.bigInteger("max_seq");
    t.timestamp("ended_at", { useTz: true });
    t.index(["user_id"]);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    "session_activity",
    "co_views",
    "interactions",
    "video_view_counts",
    "watched_videos",
    "events",
    "dead_letters",
    "consumer_checkpoints",
    "event_log",
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
