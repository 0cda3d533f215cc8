import type { Knex } from "knex";

/**
 * Survey tables (the spec, Versioning: "The survey tables were added by schema migration number 020").
 *
 * The survey rules live in storage as well as in the API, so they hold under concurrency and for rows
 * inserted directly (ARCHITECTURE.md):
 * - one active survey per (experiment, kind): a partial unique index;
 * - a response once per (survey, user) for pre and post, once per (survey, user, about session) for
 *   inter_session: two partial unique indexes;
 * - the Question shape rules: a trigger running `feedlab_survey_shape_problem`, the SQL twin of
 *   `checkSurveyShape` in schemas/src/surveys/shape.ts (same checks, order, rule codes and fields);
 * - kind fixed after creation, responses immutable once submitted: triggers;
 * - surveys go with their experiment, responses with their survey and their user; a response's
 *   about_session_id becomes null when that session goes.
 *
 * SQL note: knex treats `?` in raw SQL as a binding placeholder, so no jsonb `?` operator appears here.
 * Every statement runs on PGlite (which bundles plpgsql) and PostgreSQL alike.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("surveys", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("kind", 20).notNullable();
    t.string("name", 255).notNullable();
    t.boolean("is_active").notNullable().defaultTo(false);
    t.jsonb("questions").notNullable().defaultTo("[]");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(["experiment_id", "created_at"]);
  });
  await db.raw(
    "ALTER TABLE surveys ADD CONSTRAINT surveys_kind_check CHECK (kind IN ('pre','post','inter_session'))",
  );
  await db.raw("ALTER TABLE surveys ADD CONSTRAINT surveys_name_check CHECK (btrim(name) <> '')");
  // The spec's rule: at most one survey with is_active = true per (experiment_id, kind).
  await db.raw(
    "CREATE UNIQUE INDEX surveys_one_active_per_kind ON surveys (experiment_id, kind) WHERE is_active",
  );

  await db.raw(SHAPE_FUNCTION);
  await db.raw(SURVEY_TRIGGER_FUNCTION);
  await db.raw(
    "CREATE TRIGGER surveys_rules BEFORE INSERT OR UPDATE ON surveys FOR EACH ROW EXECUTE FUNCTION feedlab_surveys_rules()",
  );

  await db.schema.createTable("survey_responses", (t) => {
    t.uuid("id").primary();
    t.uuid("survey_id").notNullable().references("surveys.id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.uuid("about_session_id").references("sessions.id").onDelete("SET NULL");
    // The session the response was given about, kept when that session is deleted (about_session_id
    // then becomes null, as the spec asks). Uniqueness is keyed on it, so deleting a participant's
    // sessions never makes two of their inter-session responses collide under the null rule.
    // Filled from about_session_id on insert when not given.
    t.uuid("about_session_key");
    t.jsonb("answers").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(["user_id"]);
    t.index(["about_session_id"]);
  });
  await db.raw(
    `ALTER TABLE survey_responses ADD CONSTRAINT survey_responses_about_check CHECK (
       about_session_id IS NULL OR about_session_id = about_session_key)`,
  );
  await db.raw(
    "ALTER TABLE survey_responses ADD CONSTRAINT survey_responses_answers_check CHECK (jsonb_typeof(answers) = 'array')",
  );
  // The spec's uniqueness rules: (survey_id, user_id) without an about session, and
  // (survey_id, user_id, about_session_id) with one.
  await db.raw(
    "CREATE UNIQUE INDEX survey_responses_once ON survey_responses (survey_id, user_id) WHERE about_session_key IS NULL",
  );
  await db.raw(
    `CREATE UNIQUE INDEX survey_responses_once_per_session ON survey_responses (survey_id, user_id, about_session_key)
       WHERE about_session_key IS NOT NULL`,
  );
  // The CSV export reads a survey's responses in (created_at, id) order, in keyset pages.
  await db.raw("CREATE INDEX survey_responses_export ON survey_responses (survey_id, created_at, id)");

  await db.raw(RESPONSE_TRIGGER_FUNCTION);
  await db.raw(
    "CREATE TRIGGER survey_responses_rules BEFORE INSERT OR UPDATE ON survey_responses FOR EACH ROW EXECUTE FUNCTION feedlab_survey_responses_rules()",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("survey_responses");
  await db.schema.dropTableIfExists("surveys");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_survey_responses_rules()");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_surveys_rules()");
  await db.raw("DROP FUNCTION IF EXISTS feedlab_survey_shape_problem(jsonb)");
}

/**
 * The first shape problem of a question list as `{field, question_index, question_id, rule, message}`,
 * or null when the list obeys the rules. Mirrors `checkSurveyShape` (schemas/src/surveys/shape.ts).
 */
export const BLANK = "'^[ \\t\\n\\r\\f\\v]*$'";

export const SHAPE_FUNCTION = `
CREATE OR REPLACE FUNCTION feedlab_survey_shape_problem(questions jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
  q jsonb;
  o jsonb;
  i integer;
  j integer;
  at text;
  qid text;
  qtype text;
  opts jsonb;
  n_opts integer;
  mn numeric;
  mx numeric;
  seen_q text[] := '{}';
  seen_o text[];
BEGIN
  IF questions IS NULL OR jsonb_typeof(questions) <> 'array' THEN
    RETURN jsonb_build_object('field', 'questions', 'question_index', NULL, 'question_id', NULL,
      'rule', 'questions_not_list', 'message', 'questions must be a list');
  END IF;
  FOR q, i IN SELECT e.value, (e.ord - 1)::integer
              FROM jsonb_array_elements(questions) WITH ORDINALITY AS e(value, ord) ORDER BY e.ord LOOP
    at := 'questions[' || i || ']';
    IF jsonb_typeof(q) <> 'object' THEN
      RETURN jsonb_build_object('field', at, 'question_index', i, 'question_id', NULL,
        'rule', 'question_not_object', 'message', 'each question must be an object');
    END IF;
    qid := CASE WHEN jsonb_typeof(q->'id') = 'string' AND (q->>'id') !~ ${BLANK} THEN q->>'id' END;
    IF qid IS NULL THEN
      RETURN jsonb_build_object('field', at || '.id', 'question_index', i, 'question_id', NULL,
        'rule', 'question_id_required', 'message', 'the question needs an id');
    END IF;
    IF qid = ANY (seen_q) THEN
      RETURN jsonb_build_object('field', at || '.id', 'question_index', i, 'question_id', qid,
        'rule', 'question_id_duplicate', 'message', 'question id "' || qid || '" is used twice');
    END IF;
    seen_q := seen_q || qid;
    IF jsonb_typeof(q->'text') IS DISTINCT FROM 'string' OR (q->>'text') ~ ${BLANK} THEN
      RETURN jsonb_build_object('field', at || '.text', 'question_index', i, 'question_id', qid,
        'rule', 'question_text_required', 'message', 'the question needs a text');
    END IF;
    qtype := CASE WHEN jsonb_typeof(q->'type') = 'string' THEN q->>'type' END;
    IF qtype IS NULL OR qtype NOT IN ('single', 'multi', 'text') THEN
      RETURN jsonb_build_object('field', at || '.type', 'question_index', i, 'question_id', qid,
        'rule', 'question_type_unknown', 'message', 'type must be single, multi or text');
    END IF;
    opts := CASE WHEN q->'answers' IS NULL OR jsonb_typeof(q->'answers') = 'null' THEN '[]'::jsonb
                 ELSE q->'answers' END;
    IF jsonb_typeof(opts) <> 'array' THEN
      RETURN jsonb_build_object('field', at || '.answers', 'question_index', i, 'question_id', qid,
        'rule', 'answers_not_list', 'message', 'answers must be a list');
    END IF;
    n_opts := jsonb_array_length(opts);
    IF qtype = 'text' THEN
      IF n_opts > 0 THEN
        RETURN jsonb_build_object('field', at || '.answers', 'question_index', i, 'question_id', qid,
          'rule', 'text_has_answers', 'message', 'a text question must have no answer options');
      END IF;
      CONTINUE;
    END IF;
    IF n_opts = 0 THEN
      RETURN jsonb_build_object('field', at || '.answers', 'question_index', i, 'question_id', qid,
        'rule', 'options_required', 'message', 'a ' || qtype || ' question needs at least one answer option');
    END IF;
    seen_o := '{}';
    FOR o, j IN SELECT e.value, (e.ord - 1)::integer
                FROM jsonb_array_elements(opts) WITH ORDINALITY AS e(value, ord) ORDER BY e.ord LOOP
      IF jsonb_typeof(o) <> 'object' THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || ']', 'question_index', i, 'question_id', qid,
          'rule', 'option_not_object', 'message', 'each answer option must be an object');
      END IF;
      IF jsonb_typeof(o->'id') IS DISTINCT FROM 'string' OR (o->>'id') ~ ${BLANK} THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].id', 'question_index', i, 'question_id', qid,
          'rule', 'option_id_required', 'message', 'the answer option needs an id');
      END IF;
      IF (o->>'id') = ANY (seen_o) THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].id', 'question_index', i, 'question_id', qid,
          'rule', 'option_id_duplicate', 'message', 'answer option id "' || (o->>'id') || '" is used twice');
      END IF;
      seen_o := seen_o || (o->>'id');
      IF jsonb_typeof(o->'text') IS DISTINCT FROM 'string' OR (o->>'text') ~ ${BLANK} THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].text', 'question_index', i, 'question_id', qid,
          'rule', 'option_text_required', 'message', 'the answer option needs a text');
      END IF;
      IF jsonb_typeof(o->'value') IS DISTINCT FROM 'number' THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].value', 'question_index', i, 'question_id', qid,
          'rule', 'option_value_not_number', 'message', 'the answer option needs a numeric value');
      END IF;
    END LOOP;
    IF qtype = 'single' THEN
      CONTINUE;
    END IF;
    -- multi: both bounds are whole numbers >= 0; maxSelect 0 means no upper bound.
    mn := CASE WHEN jsonb_typeof(q->'minSelect') = 'number' THEN (q->>'minSelect')::numeric END;
    mx := CASE WHEN jsonb_typeof(q->'maxSelect') = 'number' THEN (q->>'maxSelect')::numeric END;
    IF mn IS NULL OR mn <> trunc(mn) THEN
      RETURN jsonb_build_object('field', at || '.minSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_bounds_required', 'message', 'a multi question needs minSelect and maxSelect');
    END IF;
    IF mx IS NULL OR mx <> trunc(mx) THEN
      RETURN jsonb_build_object('field', at || '.maxSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_bounds_required', 'message', 'a multi question needs minSelect and maxSelect');
    END IF;
    IF mn < 0 THEN
      RETURN jsonb_build_object('field', at || '.minSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_bound_negative', 'message', 'minSelect must not be negative');
    END IF;
    IF mx < 0 THEN
      RETURN jsonb_build_object('field', at || '.maxSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_bound_negative', 'message', 'maxSelect must not be negative');
    END IF;
    IF mx > 0 AND mn > mx THEN
      RETURN jsonb_build_object('field', at || '.minSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_min_above_max', 'message', 'minSelect must not be greater than maxSelect');
    END IF;
    IF mn > n_opts THEN
      RETURN jsonb_build_object('field', at || '.minSelect', 'question_index', i, 'question_id', qid,
        'rule', 'select_min_above_options',
        'message', 'minSelect must not be greater than the number of answer options');
    END IF;
  END LOOP;
  RETURN NULL;
END
$fn$`;

/** Surveys: the shape rules on every write, and kind and experiment fixed after creation. */
const SURVEY_TRIGGER_FUNCTION = `
CREATE OR REPLACE FUNCTION feedlab_surveys_rules() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  problem jsonb;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.kind IS DISTINCT FROM OLD.kind THEN
    RAISE EXCEPTION 'the kind of a survey is fixed after creation'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'surveys_kind_immutable';
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.experiment_id IS DISTINCT FROM OLD.experiment_id THEN
    RAISE EXCEPTION 'a survey stays in its experiment'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'surveys_experiment_immutable';
  END IF;
  problem := feedlab_survey_shape_problem(NEW.questions);
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION 'invalid survey: %: %', problem->>'field', problem->>'message'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'surveys_question_shape', DETAIL = problem::text;
  END IF;
  RETURN NEW;
END
$fn$`;

/**
 * Survey responses: on insert, the about session is the participant's own and matches the survey's
 * kind (set for inter_session, absent for pre and post), and the participant belongs to the survey's
 * experiment. Afterwards a response is immutable; the one change allowed is about_session_id becoming
 * null when its session is deleted (ON DELETE SET NULL).
 */
const RESPONSE_TRIGGER_FUNCTION = `
CREATE OR REPLACE FUNCTION feedlab_survey_responses_rules() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  s_kind text;
  s_experiment uuid;
  u_experiment uuid;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.survey_id IS DISTINCT FROM OLD.survey_id
       OR NEW.user_id IS DISTINCT FROM OLD.user_id OR NEW.answers IS DISTINCT FROM OLD.answers
       OR NEW.created_at IS DISTINCT FROM OLD.created_at
       OR NEW.about_session_key IS DISTINCT FROM OLD.about_session_key
       OR (NEW.about_session_id IS NOT NULL AND NEW.about_session_id IS DISTINCT FROM OLD.about_session_id) THEN
      RAISE EXCEPTION 'a submitted survey response cannot be edited'
        USING ERRCODE = 'check_violation', CONSTRAINT = 'survey_responses_immutable';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.about_session_key IS NULL THEN
    NEW.about_session_key := NEW.about_session_id;
  END IF;
  SELECT kind, experiment_id INTO s_kind, s_experiment FROM surveys WHERE id = NEW.survey_id;
  SELECT experiment_id INTO u_experiment FROM users WHERE id = NEW.user_id;
  IF s_experiment IS DISTINCT FROM u_experiment THEN
    RAISE EXCEPTION 'the participant does not take part in the survey''s experiment'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'survey_responses_experiment';
  END IF;
  IF s_kind = 'inter_session' AND NEW.about_session_key IS NULL THEN
    RAISE EXCEPTION 'an inter_session response needs about_session_id'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'survey_responses_about_session';
  END IF;
  IF s_kind IN ('pre', 'post') AND NEW.about_session_key IS NOT NULL THEN
    RAISE EXCEPTION 'a % response has no about_session_id', s_kind
      USING ERRCODE = 'check_violation', CONSTRAINT = 'survey_responses_about_session';
  END IF;
  IF NEW.about_session_id IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM sessions WHERE id = NEW.about_session_id AND user_id = NEW.user_id) THEN
    RAISE EXCEPTION 'about_session_id must be a session of the same participant'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'survey_responses_about_session';
  END IF;
  RETURN NEW;
END
$fn$`;
