import type { Migration } from "@feedlab/sql";
import { requestRebuild } from "../../replay/rebuilds.ts";
import { sumQualityParticipants } from "./quality.queries.ts";

/**
 * Participant quality (api.md "Data quality and validity"), per session: `quality_sessions` keeps
 * what any order of events sums to (events, pointer events, widest viewport, first and last client
 * time); `quality_timelines` keeps the time accounting, which depends on the order of the events
 * (quality.fold.ts), rewritten whole by the settle step (the row that folded more events wins).
 * `quality_participants` sums a participant's sessions (002), so reads of every participant of a
 * large study read one row each. `checkpoints` (003) keeps states part of the way, so a batch that comes
 * before the last event folded does not fold the whole session again.
 */
export const qualityMigrations: readonly Migration[] = [
  {
    name: "projector/quality/001-tables",
    async up(db) {
      await db.schema.createTable("quality_sessions", (t) => {
        t.uuid("session_id").primary();
        t.uuid("user_id").notNullable();
        t.uuid("experiment_id").notNullable();
        t.integer("events").notNullable();
        t.integer("pointer_events").notNullable();
        t.integer("viewport_width");
        t.timestamp("first_at", { useTz: true }).notNullable();
        t.timestamp("last_at", { useTz: true }).notNullable();
        t.index(["experiment_id"]);
        t.index(["user_id"]);
      });
      await db.schema.createTable("quality_timelines", (t) => {
        t.uuid("session_id").primary();
        t.uuid("user_id").notNullable();
        t.uuid("experiment_id").notNullable();
        // Minus the events folded: an `insert` with `least` on it keeps the row that folded the most.
        t.bigInteger("rank").notNullable();
        t.integer("folded").notNullable();
        // The last event folded, in the fold's order (seq, client time, event id).
        t.bigInteger("last_seq");
        t.bigInteger("last_at_ms").notNullable();
        t.uuid("last_event_id").notNullable();
        t.boolean("open").notNullable();
        t.boolean("visible").notNullable();
        t.boolean("focused").notNullable();
        t.boolean("playing").notNullable();
        t.bigInteger("active_ms").notNullable();
        t.bigInteger("hidden_ms").notNullable();
        t.bigInteger("watch_ms").notNullable();
        t.bigInteger("visible_watch_ms").notNullable();
        t.index(["experiment_id"]);
        t.index(["user_id"]);
      });
      // A database that already holds events builds the new read model from the log.
      await requestRebuild(db, "quality");
    },
    async down(db) {
      await db.schema.dropTableIfExists("quality_timelines");
      await db.schema.dropTableIfExists("quality_sessions");
    },
  },
  {
    name: "projector/quality/002-participants",
    async up(db) {
      // The client times a timeline has folded, earliest and latest: its visit.
      await db.schema.alterTable("quality_timelines", (t) => {
        t.bigInteger("first_ms");
        t.bigInteger("end_ms");
      });
      await db.raw(
        `update quality_timelines as t
           set first_ms = (extract(epoch from s.first_at) * 1000)::bigint,
               end_ms = (extract(epoch from s.last_at) * 1000)::bigint
         from quality_sessions as s where s.session_id = t.session_id`,
      );
      await db.schema.createTable("quality_participants", (t) => {
        t.uuid("user_id").primary();
        t.uuid("experiment_id").notNullable();
        t.integer("events").notNullable().defaultTo(0);
        t.integer("pointer_events").notNullable().defaultTo(0);
        t.integer("viewport_width");
        t.bigInteger("visit_ms").notNullable().defaultTo(0);
        t.bigInteger("active_ms").notNullable().defaultTo(0);
        t.bigInteger("hidden_ms").notNullable().defaultTo(0);
        t.bigInteger("watch_ms").notNullable().defaultTo(0);
        t.bigInteger("visible_watch_ms").notNullable().defaultTo(0);
        t.index(["experiment_id"]);
      });
      await sumQualityParticipants(db);
    },
    async down(db) {
      await db.schema.dropTableIfExists("quality_participants");
      await db.schema.alterTable("quality_timelines", (t) => {
        t.dropColumn("first_ms");
        t.dropColumn("end_ms");
      });
    },
  },
  {
    name: "projector/quality/003-checkpoints",
    async up(db) {
      // The states kept every CHECKPOINT_EVERY events (quality.fold.ts): a batch older than the last
      // event folded is folded again from the last one before it. Timelines stored before have none
      // and fold such a batch from the start once, which keeps them from then on.
      await db.schema.alterTable("quality_timelines", (t) => {
        t.jsonb("checkpoints");
      });
    },
    async down(db) {
      await db.schema.alterTable("quality_timelines", (t) => {
        t.dropColumn("checkpoints");
      });
    },
  },
];
