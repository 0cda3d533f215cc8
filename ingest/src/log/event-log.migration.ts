import type { Migration } from "@feedlab/sql";

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
  {
    // Erasure (api.md, participant rights). `event_log_erasures`: the participants whose records the
    // log erased; nothing of theirs is appended or projected again. `event_log_keys`: on Kafka, each
    // participant's records are encrypted with a key of their own, destroyed at erasure.
    name: "ingest/002-erasure",
    async up(db) {
      await db.schema.createTable("event_log_erasures", (t) => {
        t.uuid("user_id").primary();
        t.timestamp("erased_at", { useTz: true }).notNullable();
      });
      await db.schema.createTable("event_log_keys", (t) => {
        t.uuid("user_id").primary();
        t.binary("key").notNullable();
        t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw("CREATE INDEX event_log_session_idx ON event_log (session_id)");
    },
    async down(db) {
      await db.raw("DROP INDEX IF EXISTS event_log_session_idx");
      await db.schema.dropTableIfExists("event_log_keys");
      await db.schema.dropTableIfExists("event_log_erasures");
    },
  },
  {
    // Writers' Avro schemas by fingerprint (docs/events.md, schema evolution): each writer publishes
    // its own, so a reader of another release decodes every record with its writer's schema.
    name: "ingest/003-writer-schemas",
    async up(db) {
      await db.schema.createTable("event_log_schemas", (t) => {
        t.string("fingerprint", 16).primary();
        t.integer("version");
        t.jsonb("schema").notNullable();
        t.timestamp("registered_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("event_log_schemas");
    },
  },
  {
    // How each Kafka topic places sessions on partitions (docs/events.md, Partitioning): decided on a
    // topic's first start under this release and kept, so later starts need not read the topic.
    name: "ingest/004-topic-placement",
    async up(db) {
      await db.schema.createTable("event_log_topics", (t) => {
        t.string("topic", 255).primary();
        t.string("placement", 16).notNullable();
        t.timestamp("decided_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists("event_log_topics");
    },
  },
];
