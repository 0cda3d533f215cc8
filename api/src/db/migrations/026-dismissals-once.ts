import type { Knex } from "knex";

/** The key a dismissal is kept once per: survey, participant, session, and the session it is about. */
const KEY =
  "survey_id, user_id, session_id, coalesce(about_session_id, '00000000-0000-0000-0000-000000000000'::uuid)";

/**
 * A dismissal is stored once per survey, participant, session and the session it is about: the
 * database decides, so two requests at once cannot store it twice.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    delete from survey_dismissals d using survey_dismissals e
    where d.id > e.id and d.survey_id = e.survey_id and d.user_id = e.user_id
      and d.session_id = e.session_id
      and d.about_session_id is not distinct from e.about_session_id`);
  await db.raw(`create unique index survey_dismissals_once on survey_dismissals (${KEY})`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw("drop index if exists survey_dismissals_once");
}
