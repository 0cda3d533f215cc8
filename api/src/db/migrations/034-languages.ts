import type { Knex } from "knex";

/**
 * Participant languages (api.md "Participant languages", docs/languages.md):
 *
 * - an experiment's `languages` (BCP 47 tags, `["en"]` unless set), its `default_language`, and
 *   `language_switch`: whether participants may change language from the page header;
 * - each participant's `language`, chosen when they first join (null for those who joined before: the
 *   study's default language is theirs);
 * - `participant_language_changes`: every change of a participant's language, when and from what, so
 *   an analysis can tell who read which part of the study in which language;
 * - each survey response's `language`: the one its texts were shown in.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`alter table experiments
    add column languages jsonb not null default '["en"]'::jsonb,
    add column default_language text not null default 'en',
    add column language_switch boolean not null default false`);
  await db.raw("alter table users add column language text");
  // Every response so far was shown in English, the one language there was.
  await db.raw("alter table survey_responses add column language text not null default 'en'");
  await db.schema.createTable("participant_language_changes", (t) => {
    t.bigIncrements("id").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.text("from_language").notNullable();
    t.text("to_language").notNullable();
    t.timestamp("at", { useTz: true }).notNullable();
    t.index(["user_id"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("participant_language_changes");
  await db.raw("alter table survey_responses drop column if exists language");
  await db.raw("alter table users drop column if exists language");
  await db.raw(`alter table experiments drop column if exists languages,
    drop column if exists default_language, drop column if exists language_switch`);
}
