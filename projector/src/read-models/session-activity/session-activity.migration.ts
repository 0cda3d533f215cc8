import type { Migration } from "@feedlab/sql";
import { requestRebuild } from "../../replay/rebuilds.ts";

/**
 * Session activity: first and last event, count, highest sequence number, explicit end. A session
 * without events for the idle timeout counts as ended.
 */
export const sessionActivityMigrations: readonly Migration[] = [
  {
    name: "projector/session-activity/001-table",
    async up(db) {
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
    },
    async down(db) {
      await db.schema.dropTableIfExists("session_activity");
    },
  },
  {
    // Data completeness (api.md: `GET .../completeness`): the events that carry the client's `seq`,
    // so the gaps of a session are its highest `seq` less that count (the runtime numbers from 1).
    name: "projector/session-activity/002-seq-count",
    async up(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.integer("seq_count").notNullable().defaultTo(0);
        t.index(["experiment_id"]);
      });
      await requestRebuild(db, "session_activity");
    },
    async down(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.dropIndex(["experiment_id"]);
        t.dropColumn("seq_count");
      });
    },
  },
  {
    // Client clocks (docs/events.md): the least (arrival - client time) of a session's events, its
    // clock offset (a client clock behind the server's gives a positive offset, one ahead a negative
    // one; buffering only adds), and how many of its events carry an implausible client time.
    name: "projector/session-activity/003-clock",
    async up(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.bigInteger("clock_offset_ms");
        t.integer("implausible_times").notNullable().defaultTo(0);
      });
      await requestRebuild(db, "session_activity");
    },
    async down(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.dropColumn("implausible_times");
        t.dropColumn("clock_offset_ms");
      });
    },
  },
  {
    // Reloads (docs/events.md, Sessions): every page unload sends SESSION_END and the same session
    // goes on after a reload, its `seq` carrying on. The highest `seq` of a SESSION_END tells whether
    // the session ended there (no later event) or went on.
    name: "projector/session-activity/004-end-seq",
    async up(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.bigInteger("end_seq");
      });
      await requestRebuild(db, "session_activity");
    },
    async down(db) {
      await db.schema.alterTable("session_activity", (t) => {
        t.dropColumn("end_seq");
      });
    },
  },
  {
    // Completion by the server's clock (api.md "Trust boundaries (wave 4)"): the runs of a session's
    // arrival times (a gap over 30 s starts a new run), whose length is its time on the pages, never
    // the client's timestamps; and when its first event arrived (whether it began long enough after
    // the last counted session).
    name: "projector/session-activity/005-session-time",
    async up(db) {
      await db.schema.createTable("session_time", (t) => {
        t.uuid("session_id").primary();
        t.uuid("user_id").notNullable();
        t.uuid("experiment_id").notNullable();
        t.jsonb("arrival_runs").notNullable();
        t.timestamp("first_received_at", { useTz: true }).notNullable();
        t.timestamp("last_received_at", { useTz: true }).notNullable();
        t.index(["user_id"]);
      });
      await requestRebuild(db, "session_activity");
    },
    async down(db) {
      await db.schema.dropTableIfExists("session_time");
    },
  },
];
