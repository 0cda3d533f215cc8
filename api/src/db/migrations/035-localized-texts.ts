import type { Knex } from "knex";
import { BLANK, SHAPE_FUNCTION } from "./020-surveys.ts";

/**
 * Researchers' texts in several languages (api.md "Participant languages", docs/languages.md): the
 * consent text, a survey's name and its questions' and options' texts hold a string or an object
 * `{<tag>: text}`. The consent text and the survey name become jsonb (a string stays a JSON string);
 * the question shape rules accept either form through `feedlab_text_present`, the twin of
 * `isPresentText` in schemas/src/surveys/shape.ts. A survey's name keeps its limit of 255 characters,
 * in each language.
 */
const TEXT_PRESENT = `
CREATE OR REPLACE FUNCTION feedlab_text_present(t jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE jsonb_typeof(t)
    WHEN 'string' THEN (t #>> '{}') !~ ${BLANK}
    WHEN 'object' THEN t <> '{}'::jsonb AND NOT EXISTS (
      SELECT 1 FROM jsonb_each(t) AS e
      WHERE jsonb_typeof(e.value) IS DISTINCT FROM 'string' OR (e.value #>> '{}') ~ ${BLANK})
    ELSE false
  END
$fn$`;

/** The longest version of a text (a survey's name keeps the 255 characters its column held). */
const TEXT_LONGEST = `
CREATE OR REPLACE FUNCTION feedlab_text_longest(t jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE jsonb_typeof(t)
    WHEN 'string' THEN length(t #>> '{}')
    WHEN 'object' THEN (SELECT coalesce(max(length(e.value)), 0) FROM jsonb_each_text(t) AS e)
    ELSE 0
  END
$fn$`;

/**
 * A text in one language, for reads in SQL (the researcher's: `feedlab_text_in(s.name,
 * e.default_language)`): that language's version, else the first; a plain string as it is. The twin of
 * `textIn` in schemas/src/http/localized-text.ts.
 */
const TEXT_IN = `
CREATE OR REPLACE FUNCTION feedlab_text_in(t jsonb, lang text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE jsonb_typeof(t)
    WHEN 'object' THEN coalesce(t ->> lang, jsonb_path_query_first(t, '$.*') #>> '{}')
    ELSE t #>> '{}'
  END
$fn$`;

/** The shape rules with a question's and an option's text present in either form. */
const shapeFunction = (present: (field: string) => string) =>
  SHAPE_FUNCTION.replace(
    `jsonb_typeof(q->'text') IS DISTINCT FROM 'string' OR (q->>'text') ~ ${BLANK}`,
    present("q->'text'"),
  ).replace(
    `jsonb_typeof(o->'text') IS DISTINCT FROM 'string' OR (o->>'text') ~ ${BLANK}`,
    present("o->'text'"),
  );

export async function up(db: Knex): Promise<void> {
  await db.raw(TEXT_PRESENT);
  await db.raw(TEXT_LONGEST);
  await db.raw(TEXT_IN);
  const localized = shapeFunction((field) => `NOT feedlab_text_present(${field})`);
  if (localized === SHAPE_FUNCTION) throw new Error("035: the shape function's text checks were not found");
  await db.raw(localized);
  await db.raw("alter table experiments alter column consent_text type jsonb using to_jsonb(consent_text)");
  await db.raw("alter table surveys drop constraint surveys_name_check");
  await db.raw("alter table surveys alter column name type jsonb using to_jsonb(name)");
  await db.raw("alter table surveys add constraint surveys_name_check check (feedlab_text_present(name))");
  await db.raw(
    "alter table surveys add constraint surveys_name_length check (feedlab_text_longest(name) <= 255)",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw("alter table surveys drop constraint surveys_name_length");
  await db.raw("alter table surveys drop constraint surveys_name_check");
  // Back to one text each: the English one where there is one, else the first.
  await db.raw("alter table surveys alter column name type varchar(255) using feedlab_text_in(name, 'en')");
  await db.raw("alter table surveys add constraint surveys_name_check check (btrim(name) <> '')");
  await db.raw(
    "alter table experiments alter column consent_text type text using feedlab_text_in(consent_text, 'en')",
  );
  await db.raw(SHAPE_FUNCTION);
  await db.raw("drop function if exists feedlab_text_present(jsonb)");
  await db.raw("drop function if exists feedlab_text_longest(jsonb)");
  await db.raw("drop function if exists feedlab_text_in(jsonb, text)");
}
