import type { Knex } from "knex";

/**
 * The study flow (api.md, Study flow): an experiment's consent text and completion rule; per participant
 * when they consented (and to which version of the text) or declined, when they finished, and whether a
 * researcher excluded them from analysis; dismissed surveys; changes made to a running arm.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable("experiments", (t) => {
    t.text("consent_text");
    t.jsonb("completion");
  });
  await db.schema.alterTable("users", (t) => {
    t.timestamp("consented_at", { useTz: true });
    t.string("consent_version", 64);
    t.timestamp("consent_declined_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    t.timestamp("excluded_at", { useTz: true });
    t.text("excluded_reason");
  });
  await db.schema.createTable("survey_dismissals", (t) => {
    t.uuid("id").primary();
    t.uuid("survey_id").notNullable().references("surveys.id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("session_id").notNullable();
    t.uuid("about_session_id");
    t.timestamp("dismissed_at", { useTz: true }).notNullable();
    t.index(["survey_id"]);
    t.index(["user_id"]);
  });
  await db.schema.createTable("group_changes", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.uuid("group_id").notNullable();
    t.string("group_name", 255).notNullable();
    t.string("field", 40).notNullable();
    t.text("old_value");
    t.text("new_value");
    t.string("admin", 255);
    t.timestamp("changed_at", { useTz: true }).notNullable();
    t.index(["experiment_id", "changed_at"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("group_changes");
  await db.schema.dropTableIfExists("survey_dismissals");
  await db.schema.alterTable("users", (t) => {
    for (const c of [
      "consented_at",
      "consent_version",
      "consent_declined_at",
      "finished_at",
      "excluded_at",
      "excluded_reason",
    ])
      t.dropColumn(c);
  });
  await db.schema.alterTable("experiments", (t) => {
    t.dropColumn("consent_text");
    t.dropColumn("completion");
  });
}
