import type { Knex } from "knex";

/**
 * Each participant's survey measures summed (docs/quality.md, "Surveys"): `participant_survey_measures`
 * keeps, per participant, their timed responses' durations and their surveys' question counts, whether
 * any response is straight-lined and the attention checks passed and failed, so reads of every
 * participant of a large study (`GET .../quality`, the participants CSV, the rules) read one row each
 * instead of every response. Kept by `refreshSurveyMeasures` in the transactions that change them: a
 * response stored, a survey's questions replaced (its responses judged again), a survey deleted; a
 * participant's row goes with them. Filled here for the responses already stored, by one statement
 * frozen as `refreshSurveyMeasures` summed them when this migration was written (a migration does what it
 * did, whatever today's code does).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("participant_survey_measures", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    t.uuid("experiment_id").notNullable();
    t.double("timed_ms").notNullable().defaultTo(0);
    t.integer("timed_questions").notNullable().defaultTo(0);
    t.boolean("straight_lined").notNullable().defaultTo(false);
    t.integer("attention_passed").notNullable().defaultTo(0);
    t.integer("attention_failed").notNullable().defaultTo(0);
    t.index(["experiment_id"]);
  });
  await db.raw(
    `with s as materialized (select id, jsonb_array_length(questions) as questions from surveys),
     r as (
       select r.user_id, r.duration_ms, r.straight_lined, r.attention_passed, r.attention_failed, s.questions
       from survey_responses as r join s on s.id = r.survey_id
     )
     insert into participant_survey_measures (user_id, experiment_id, timed_ms, timed_questions,
       straight_lined, attention_passed, attention_failed)
     select u.id, u.experiment_id,
       coalesce(sum(r.duration_ms::float8) filter (where r.duration_ms is not null and r.questions > 0), 0),
       coalesce(sum(r.questions) filter (where r.duration_ms is not null and r.questions > 0), 0),
       coalesce(bool_or(r.straight_lined), false),
       coalesce(sum(r.attention_passed), 0), coalesce(sum(r.attention_failed), 0)
     from users as u join r on r.user_id = u.id
     group by u.id, u.experiment_id`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("participant_survey_measures");
}
