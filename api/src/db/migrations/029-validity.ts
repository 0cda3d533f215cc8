import type { Knex } from "knex";

/**
 * Validity instruments (issue 37, api.md "Data quality and validity"): an experiment's pre-registered
 * exclusion rules and its floor on feed and related answer times; every change of the rules, with
 * who made it and what they were before and after (a change while running is shown on the results
 * page); how long a survey form was open when its response was sent.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`alter table experiments add column exclusion_rules jsonb not null default '[]'::jsonb`);
  await db.raw("alter table experiments add column min_response_ms integer");
  await db.schema.createTable("exclusion_rule_changes", (t) => {
    t.bigIncrements("seq").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.timestamp("at", { useTz: true }).notNullable();
    t.string("admin", 64);
    t.string("status", 16).notNullable();
    t.jsonb("before").notNullable();
    t.jsonb("after").notNullable();
    t.index(["experiment_id", "at"]);
  });
  await db.raw("alter table survey_responses add column duration_ms integer");
}

export async function down(db: Knex): Promise<void> {
  await db.raw("alter table survey_responses drop column if exists duration_ms");
  await db.schema.dropTableIfExists("exclusion_rule_changes");
  await db.raw("alter table experiments drop column if exists min_response_ms");
  await db.raw("alter table experiments drop column if exists exclusion_rules");
}
