import type { Knex } from "knex";

/**
 * Reads at the size of a large study (issue "Performance at the size of a real study"):
 *
 * - participants in join order (the console's list, quality, the participants CSV's keyset pages) are
 *   read from an index on (experiment_id, created_at, id) instead of sorting every participant;
 * - `answer_values`, beside each survey response's answers, holds as JSON text `{questionId: [value,
 *   ...]}` for every answered choice question, in the order of the response's selections. The quality
 *   measures (attention checks, straight-lining: docs/quality.md) read only these values; reading them
 *   from `answers` meant reading every response's whole snapshot (question and option texts, free
 *   text): over 90% of the time of `GET .../quality` at 10,000 participants with three surveys. A
 *   trigger makes the column from `answers` on every insert and update, so it cannot disagree with them
 *   (answers are immutable: 020) and rows inserted directly get it too; the migration fills it for the
 *   responses already stored. Text, not jsonb: reading jsonb as text costs the database a conversion
 *   per row (4 to 5 times the read here);
 * - `answer_texts`, made the same way, holds `{questionId: text}` for every answer given as text alone
 *   (null when there is none): with `answer_values`, every cell of the wide survey CSV, which then
 *   reads neither the snapshots nor their jsonb.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("CREATE INDEX users_join_order ON users (experiment_id, created_at, id)");
  await db.raw("alter table survey_responses add column answer_values text");
  await db.raw(`
    CREATE OR REPLACE FUNCTION feedlab_answer_values(answers jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE AS $fn$
      SELECT coalesce(jsonb_object_agg(a->>'questionId',
               (SELECT jsonb_agg(s->'value') FROM jsonb_array_elements(a->'selections') s)), '{}'::jsonb)::text
      FROM jsonb_array_elements(answers) a
      WHERE jsonb_typeof(a) = 'object' AND a->>'questionId' IS NOT NULL
        AND jsonb_typeof(a->'selections') = 'array' AND jsonb_array_length(a->'selections') > 0
    $fn$`);
  await db.raw("alter table survey_responses add column answer_texts text");
  await db.raw(`
    CREATE OR REPLACE FUNCTION feedlab_answer_texts(answers jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE AS $fn$
      SELECT jsonb_object_agg(a->>'questionId', a->'textInput')::text
      FROM jsonb_array_elements(answers) a
      WHERE jsonb_typeof(a) = 'object' AND a->>'questionId' IS NOT NULL
        AND jsonb_typeof(a->'textInput') = 'string'
        AND (jsonb_typeof(a->'selections') IS DISTINCT FROM 'array' OR jsonb_array_length(a->'selections') = 0)
    $fn$`);
  await db.raw(`
    CREATE OR REPLACE FUNCTION feedlab_survey_responses_values() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    BEGIN
      NEW.answer_values := feedlab_answer_values(NEW.answers);
      NEW.answer_texts := feedlab_answer_texts(NEW.answers);
      RETURN NEW;
    END
    $fn$`);
  await db.raw(
    "CREATE TRIGGER survey_responses_values BEFORE INSERT OR UPDATE ON survey_responses FOR EACH ROW EXECUTE FUNCTION feedlab_survey_responses_values()",
  );
  // Fires the trigger for every stored response (the immutability rules let the new column change).
  await db.raw("update survey_responses set answer_values = null");
}

export async function down(db: Knex): Promise<void> {
  await db.raw("DROP TRIGGER IF EXISTS survey_responses_values ON survey_responses");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_survey_responses_values()");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_answer_values(jsonb)");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_answer_texts(jsonb)");
  await db.raw("alter table survey_responses drop column if exists answer_texts");
  await db.raw("alter table survey_responses drop column if exists answer_values");
  await db.raw("DROP INDEX IF EXISTS users_join_order");
}
