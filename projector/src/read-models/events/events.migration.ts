import type { Migration } from "@feedlab/sql";

/** The events store: every wire field, the stamped columns, payload as JSONB. */
export const eventsMigrations: readonly Migration[] = [
  {
    name: "projector/events/001-table",
    async up(db) {
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
    },
    async down(db) {
      await db.schema.dropTableIfExists("events");
    },
  },
  {
    // The UI in force for each page (a preset key, none, or <template id>@<version>); null on
    // events logged before the log recorded it.
    name: "projector/events/002-ui",
    async up(db) {
      await db.schema.alterTable("events", (t) => {
        t.string("ui_feed", 100);
        t.string("ui_watch", 100);
      });
    },
    async down(db) {
      await db.schema.alterTable("events", (t) => {
        t.dropColumn("ui_feed");
        t.dropColumn("ui_watch");
      });
    },
  },
  {
    // A simulated participant's event (a dry run, issue 36; false on events logged before the log
    // recorded it, which were all real). Erasure reads it: a simulated event never counted in the
    // read models that leave such events out, so erasing its participant takes nothing off them.
    name: "projector/events/003-simulated",
    async up(db) {
      await db.schema.alterTable("events", (t) => {
        t.boolean("simulated").notNullable().defaultTo(false);
      });
    },
    async down(db) {
      await db.schema.alterTable("events", (t) => {
        t.dropColumn("simulated");
      });
    },
  },
  {
    // A participant of a study that balances on a pre survey's answer has no arm until they answer it
    // (api.md "Assignment (wave 4)"): their events meanwhile are stored without one.
    name: "projector/events/004-without-arm",
    async up(db) {
      await db.raw("alter table events alter column group_id drop not null");
    },
    async down(db) {
      await db.raw("delete from events where group_id is null");
      await db.raw("alter table events alter column group_id set not null");
    },
  },
  {
    // A session's events in the quality fold's order (seq, events without one first; client time),
    // so folding from a kept state reads the events after it, not every event of the participant.
    name: "projector/events/005-session-order",
    async up(db) {
      await db.raw(
        "create index if not exists events_session_order_idx on events (session_id, (coalesce(seq, -1)), timestamp)",
      );
    },
    async down(db) {
      await db.raw("drop index if exists events_session_order_idx");
    },
  },
];
