import type { Knex } from "knex";

/**
 * Longitudinal studies (api.md "Longitudinal studies (wave 4)", docs/longitudinal.md):
 *
 * - `experiments.schedule` (the windows of sessions 2, 3, ...) and `experiments.reminders`;
 * - `users.lapsed_at`: when a window of the schedule closed unused (final);
 * - `participant_keys`: each participant's own key, made when they give an address, gone with them;
 * - `participant_contacts`: the address for reminders, sealed with that key (AES-256-GCM), and the
 *   token of its unsubscribe link;
 * - `reminder_messages`: one row per reminder (participant, session, kind), claimed as `sending`
 *   (committed) before the message leaves, so none is sent twice; `sent` once the SMTP server accepted
 *   it, `failed` after its last attempt.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable("experiments", (t) => {
    t.jsonb("schedule");
    t.jsonb("reminders");
  });
  await db.schema.alterTable("users", (t) => {
    t.timestamp("lapsed_at", { useTz: true });
  });
  await db.schema.createTable("participant_keys", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    t.binary("key").notNullable();
  });
  await db.schema.createTable("participant_contacts", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    t.binary("address").notNullable();
    t.string("unsubscribe_token", 64).notNullable().unique();
    t.timestamp("unsubscribed_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
  await db.schema.createTable("reminder_messages", (t) => {
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.integer("session").notNullable();
    t.string("kind", 8).notNullable();
    t.string("status", 8).notNullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_at", { useTz: true }).notNullable();
    t.text("last_error");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("sent_at", { useTz: true });
    t.primary(["user_id", "session", "kind"]);
    t.index(["status", "next_at"]);
    t.index(["experiment_id"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("reminder_messages");
  await db.schema.dropTableIfExists("participant_contacts");
  await db.schema.dropTableIfExists("participant_keys");
  await db.schema.alterTable("users", (t) => t.dropColumn("lapsed_at"));
  await db.schema.alterTable("experiments", (t) => {
    t.dropColumn("reminders");
    t.dropColumn("schedule");
  });
}
