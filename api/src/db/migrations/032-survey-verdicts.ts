import type { Knex } from "knex";
import { rejudgeSurvey } from "../../surveys/verdicts.ts";

/**
 * Each survey response's verdict on the quality measures, stored beside it (api/src/surveys/verdicts.ts):
 * `straight_lined`, `attention_passed`, `attention_failed`. `GET .../quality` judged every response of
 * the experiment on every read (at 10,000 participants with three surveys, parsing 20,000 responses'
 * values took most of its time); it now sums these columns per participant in the database. The
 * responses already stored are judged here against their surveys' questions as they are.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`alter table survey_responses
    add column straight_lined boolean not null default false,
    add column attention_passed integer not null default 0,
    add column attention_failed integer not null default 0`);
  const surveys = (await db("surveys").select("id")) as { id: string }[];
  for (const s of surveys) await rejudgeSurvey(db, s.id);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`alter table survey_responses drop column if exists straight_lined,
    drop column if exists attention_passed, drop column if exists attention_failed`);
}
