import type { Migration } from "@feedlab/ingest";

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
];
