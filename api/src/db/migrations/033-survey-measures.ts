import type { Knex } from "knex";
import { refreshSurveyMeasures } from "../../quality/survey-measures.ts";

/**
 * Each participant's survey measures summed (docs/quality.md, "Surveys"): `participant_survey_measures`
 * keeps, per participant, their timed responses' durations and their surveys' question counts, whether
 * any response is straight-lined and the attention checks passed and failed, so reads of every
 * participant of a large study (`GET .../quality`, the participants CSV, the rules) read one row each
 * instead of every response. Kept by `refreshSurveyMeasures` in the transactions that change them: a
 * response stored, a survey's questions replaced (its responses judged again), a survey deleted; a
 * participant's row goes with them. Filled here for the responses already stored.
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
  const experiments = (await db("survey_responses as r")
    .join("users as u", "u.id", "r.user_id")
    .distinct("u.experiment_id")) as { experiment_id: string }[];
  for (const { experiment_id } of experiments) {
    const users = (await db("survey_responses as r")
      .join("users as u", "u.id", "r.user_id")
      .where("u.experiment_id", experiment_id)
      .distinct("r.user_id")) as { user_id: string }[];
    await refreshSurveyMeasures(
      db,
      experiment_id,
      users.map((u) => u.user_id),
    );
  }
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("participant_survey_measures");
}
