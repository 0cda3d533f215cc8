import type { Migration } from "../db/sql.ts";

/** The embedded event log: append-only. `position` orders records; event_id is unique (dedupe). */
export const eventLogMigrations: readonly Migration[] = [
  {
    name: "ingest/001-event-log",
    async up(db) {
      await db.raw(`CREATE TABLE event_log (
        position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE,
        session_id uuid NOT NULL,
        record bytea NOT NULL,
        appended_at timestamptz NOT NULL DEFAULT now()
      )`);
    },
    async down(db) {
      await db.schema.dropTableIfExists("event_log");
    },
  },
];
