-- A database made by Feedlab 0.1.0 (commit 071fd5e), for the upgrade test (upgrade.int.test.ts):
-- its migrations, then a study through its HTTP API (two arms, six videos in the pool, an active pre
-- survey answered by three participants, a registered external recommender, each participant's
-- session of events projected into the read models, a queued model run). Dumped with
-- `pg_dump --no-owner --no-privileges --inserts --no-comments`, without psql meta-commands, comments
-- and session settings, so that it loads statement by statement on PostgreSQL and on PGlite.

CREATE FUNCTION public.feedlab_survey_responses_rules() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
$$;

CREATE FUNCTION public.feedlab_survey_shape_problem(questions jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    AS $_$
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
    qid := CASE WHEN jsonb_typeof(q->'id') = 'string' AND (q->>'id') !~ '^[ \t\n\r\f\v]*$' THEN q->>'id' END;
    IF qid IS NULL THEN
      RETURN jsonb_build_object('field', at || '.id', 'question_index', i, 'question_id', NULL,
        'rule', 'question_id_required', 'message', 'the question needs an id');
    END IF;
    IF qid = ANY (seen_q) THEN
      RETURN jsonb_build_object('field', at || '.id', 'question_index', i, 'question_id', qid,
        'rule', 'question_id_duplicate', 'message', 'question id "' || qid || '" is used twice');
    END IF;
    seen_q := seen_q || qid;
    IF jsonb_typeof(q->'text') IS DISTINCT FROM 'string' OR (q->>'text') ~ '^[ \t\n\r\f\v]*$' THEN
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
      IF jsonb_typeof(o->'id') IS DISTINCT FROM 'string' OR (o->>'id') ~ '^[ \t\n\r\f\v]*$' THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].id', 'question_index', i, 'question_id', qid,
          'rule', 'option_id_required', 'message', 'the answer option needs an id');
      END IF;
      IF (o->>'id') = ANY (seen_o) THEN
        RETURN jsonb_build_object('field', at || '.answers[' || j || '].id', 'question_index', i, 'question_id', qid,
          'rule', 'option_id_duplicate', 'message', 'answer option id "' || (o->>'id') || '" is used twice');
      END IF;
      seen_o := seen_o || (o->>'id');
      IF jsonb_typeof(o->'text') IS DISTINCT FROM 'string' OR (o->>'text') ~ '^[ \t\n\r\f\v]*$' THEN
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
$_$;

CREATE FUNCTION public.feedlab_surveys_rules() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
$$;

CREATE TABLE public.admins (
    id uuid NOT NULL,
    username character varying(64) NOT NULL,
    password_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.app_settings (
    key text NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.auth_sessions (
    token_hash character varying(64) NOT NULL,
    role character varying(20) NOT NULL,
    admin_id uuid,
    user_id uuid,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT auth_sessions_subject_check CHECK (((((role)::text = 'admin'::text) AND (admin_id IS NOT NULL) AND (user_id IS NULL)) OR (((role)::text = 'participant'::text) AND (user_id IS NOT NULL) AND (admin_id IS NULL))))
);

CREATE TABLE public.co_views (
    experiment_id uuid NOT NULL,
    video_a character varying(255) NOT NULL,
    video_b character varying(255) NOT NULL,
    count integer NOT NULL
);

CREATE TABLE public.consumer_checkpoints (
    consumer character varying(100) NOT NULL,
    partition integer NOT NULL,
    log_offset bigint NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.dead_letters (
    id bigint NOT NULL,
    consumer character varying(100) NOT NULL,
    partition integer NOT NULL,
    log_offset bigint NOT NULL,
    event_id uuid,
    reason text NOT NULL,
    record bytea,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE SEQUENCE public.dead_letters_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.dead_letters_id_seq OWNED BY public.dead_letters.id;

CREATE TABLE public.event_log (
    "position" bigint NOT NULL,
    event_id uuid NOT NULL,
    session_id uuid NOT NULL,
    record bytea NOT NULL,
    appended_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.event_log ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.event_log_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.events (
    event_id uuid NOT NULL,
    session_id uuid NOT NULL,
    user_id uuid NOT NULL,
    login_id character varying(255) NOT NULL,
    experiment_id uuid NOT NULL,
    group_id uuid NOT NULL,
    event_type character varying(64) NOT NULL,
    video_id character varying(255),
    "timestamp" timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL,
    watch_ratio double precision,
    watch_duration double precision,
    position_in_feed integer,
    algorithm_feed character varying(100) NOT NULL,
    algorithm_watch character varying(100) NOT NULL,
    payload jsonb NOT NULL,
    seq bigint,
    log_partition integer NOT NULL,
    log_offset bigint NOT NULL
);

CREATE TABLE public.experiment_videos (
    experiment_id uuid NOT NULL,
    video_id uuid NOT NULL,
    "position" integer NOT NULL
);

CREATE TABLE public.experiments (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    status character varying(20) DEFAULT 'draft'::character varying NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT experiments_status_check CHECK (((status)::text = ANY ((ARRAY['draft'::character varying, 'running'::character varying, 'paused'::character varying, 'completed'::character varying])::text[])))
);

CREATE TABLE public.groups (
    id uuid NOT NULL,
    experiment_id uuid NOT NULL,
    name character varying(255) NOT NULL,
    weight double precision DEFAULT '1'::double precision NOT NULL,
    algorithm_feed character varying(100) NOT NULL,
    algorithm_watch character varying(100) NOT NULL,
    ui_feed character varying(100) NOT NULL,
    ui_watch character varying(100) NOT NULL,
    recommender_params jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT groups_weight_check CHECK ((weight > (0)::double precision))
);

CREATE TABLE public.interactions (
    experiment_id uuid NOT NULL,
    user_id uuid NOT NULL,
    video_id character varying(255) NOT NULL,
    weight double precision NOT NULL,
    events integer NOT NULL,
    last_at timestamp with time zone NOT NULL,
    last_received_at timestamp with time zone NOT NULL
);

CREATE TABLE public.item_similarity (
    experiment_id uuid NOT NULL,
    video_id character varying(255) NOT NULL,
    other_video_id character varying(255) NOT NULL,
    score double precision NOT NULL,
    model_run_id uuid,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);

CREATE SEQUENCE public.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.knex_migrations_id_seq OWNED BY public.knex_migrations.id;

CREATE TABLE public.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);

CREATE SEQUENCE public.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.knex_migrations_lock_index_seq OWNED BY public.knex_migrations_lock.index;

CREATE TABLE public.model_runs (
    id uuid NOT NULL,
    experiment_id uuid NOT NULL,
    status character varying(20) NOT NULL,
    trigger character varying(20) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    interactions integer,
    users integer,
    videos integer,
    watermark timestamp with time zone,
    source_events bigint,
    metrics jsonb,
    skipped_reason text,
    error text,
    CONSTRAINT model_runs_status_check CHECK (((status)::text = ANY ((ARRAY['queued'::character varying, 'running'::character varying, 'succeeded'::character varying, 'failed'::character varying, 'skipped'::character varying])::text[]))),
    CONSTRAINT model_runs_trigger_check CHECK (((trigger)::text = ANY ((ARRAY['schedule'::character varying, 'manual'::character varying])::text[])))
);

CREATE TABLE public.recommendation_cache (
    experiment_id uuid NOT NULL,
    user_id uuid NOT NULL,
    video_id character varying(255) NOT NULL,
    rank integer NOT NULL,
    score double precision NOT NULL,
    model_run_id uuid,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.recommenders (
    key character varying(64) NOT NULL,
    kind character varying(32) NOT NULL,
    label character varying(255) NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    category character varying(100) DEFAULT ''::character varying NOT NULL,
    supports_feed boolean NOT NULL,
    supports_watch boolean NOT NULL,
    config jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT recommenders_kind_check CHECK (((kind)::text = ANY ((ARRAY['builtin'::character varying, 'external_http'::character varying])::text[])))
);

CREATE TABLE public.session_activity (
    session_id uuid NOT NULL,
    user_id uuid NOT NULL,
    experiment_id uuid NOT NULL,
    first_event_at timestamp with time zone NOT NULL,
    last_event_at timestamp with time zone NOT NULL,
    last_received_at timestamp with time zone NOT NULL,
    event_count integer NOT NULL,
    max_seq bigint,
    ended_at timestamp with time zone
);

CREATE TABLE public.sessions (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    ended_at timestamp with time zone
);

CREATE TABLE public.survey_responses (
    id uuid NOT NULL,
    survey_id uuid NOT NULL,
    user_id uuid NOT NULL,
    about_session_id uuid,
    about_session_key uuid,
    answers jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT survey_responses_about_check CHECK (((about_session_id IS NULL) OR (about_session_id = about_session_key))),
    CONSTRAINT survey_responses_answers_check CHECK ((jsonb_typeof(answers) = 'array'::text))
);

CREATE TABLE public.surveys (
    id uuid NOT NULL,
    experiment_id uuid NOT NULL,
    kind character varying(20) NOT NULL,
    name character varying(255) NOT NULL,
    is_active boolean DEFAULT false NOT NULL,
    questions jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT surveys_kind_check CHECK (((kind)::text = ANY ((ARRAY['pre'::character varying, 'post'::character varying, 'inter_session'::character varying])::text[]))),
    CONSTRAINT surveys_name_check CHECK ((btrim((name)::text) <> ''::text))
);

CREATE TABLE public.users (
    id uuid NOT NULL,
    experiment_id uuid NOT NULL,
    login_id character varying(255) NOT NULL,
    group_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

CREATE TABLE public.video_view_counts (
    experiment_id uuid NOT NULL,
    video_id character varying(255) NOT NULL,
    plays bigint NOT NULL,
    last_played_at timestamp with time zone NOT NULL
);

CREATE TABLE public.videos (
    id uuid NOT NULL,
    external_id character varying(255) NOT NULL,
    url text NOT NULL,
    resolved_url text NOT NULL,
    type character varying(20) NOT NULL,
    title text NOT NULL,
    channel_name text,
    category text,
    description text,
    tags jsonb DEFAULT '[]'::jsonb NOT NULL,
    duration_seconds double precision,
    view_count bigint,
    thumbnail_url text,
    published_at timestamp with time zone,
    comments jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT videos_type_check CHECK (((type)::text = ANY ((ARRAY['native'::character varying, 'youtube'::character varying, 'vimeo'::character varying])::text[])))
);

CREATE TABLE public.watched_videos (
    user_id uuid NOT NULL,
    video_id character varying(255) NOT NULL,
    experiment_id uuid NOT NULL,
    first_watched_at timestamp with time zone NOT NULL,
    log_partition integer NOT NULL,
    log_offset bigint NOT NULL
);

ALTER TABLE ONLY public.dead_letters ALTER COLUMN id SET DEFAULT nextval('public.dead_letters_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations ALTER COLUMN id SET DEFAULT nextval('public.knex_migrations_id_seq'::regclass);

ALTER TABLE ONLY public.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('public.knex_migrations_lock_index_seq'::regclass);

INSERT INTO public.admins VALUES ('a15d650b-73cc-4986-80e6-0abde4a2c84c', 'admin', 'scrypt$32768$8$1$vHl5yRLcYJCWHAcxqBUMNQ$rTRZ5IinEYn8XhVY3d3XE_V3LCzGT3wKQyLF3X_Hg0s', '2026-11-24 21:23:52.969+00');

INSERT INTO public.auth_sessions VALUES ('4d7618a5c41a860650d1358981b257d063dfec7a7745b018180954519d5d858d', 'admin', 'a15d650b-73cc-4986-80e6-0abde4a2c84c', NULL, '2026-11-24 21:23:53.085+00', '2026-12-01 21:23:53.085+00');
INSERT INTO public.auth_sessions VALUES ('08ade781cc51b64fbf0b4d973bc4d355955a63e056a97eae42bcc95dc0b9dc2f', 'participant', NULL, '55fd4845-5204-4cb2-be8a-656d080d9328', '2026-11-24 21:23:53.144+00', '2027-05-23 21:23:53.144+00');
INSERT INTO public.auth_sessions VALUES ('742018cf8e8c506cb20e7d117ab7a53a8618d5f459297974b0e046cad9e61d07', 'participant', NULL, '457a8676-4515-4e5b-a540-47652e6d6e45', '2026-11-24 21:23:53.166+00', '2027-05-23 21:23:53.166+00');
INSERT INTO public.auth_sessions VALUES ('2705c0af39790928f5a1c9d0c7eda163a197bd1d80e0fd988b071a3de29b4f05', 'participant', NULL, 'fe8a4101-7176-47e7-850e-f03b12c44df4', '2026-11-24 21:23:53.184+00', '2027-05-23 21:23:53.184+00');

INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-1-1', 'vid-2-2', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-1-1', 'vid-3-3', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-1-1', 'vid-4-4', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-2-2', 'vid-3-3', 2);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-2-2', 'vid-4-4', 2);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-2-2', 'vid-5-5', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-3-3', 'vid-4-4', 3);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-3-3', 'vid-5-5', 2);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-3-3', 'vid-6-6', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-4-4', 'vid-5-5', 2);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-4-4', 'vid-6-6', 1);
INSERT INTO public.co_views VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-5-5', 'vid-6-6', 1);

INSERT INTO public.consumer_checkpoints VALUES ('projector', 0, 42, '2026-11-24 21:23:53.202+00');

INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (1, '544d4a87-48ad-4704-a6ea-0772214152f9', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4835343464346138372d343861642d343730342d613665612d3037373232313431353266394838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d6633336435616534333463371a53455353494f4e5f535441525400f4edabd5bf6886eb8cf7c1680000000e726563656e63790e726563656e637994077b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131222c22737461727454696d65223a313739353231393930303030302c227265666572726572223a2268747470733a2f2f6170702e70726f6c696669632e636f6d2f222c22696e697469616c55726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c22696e697469616c5061676554797065223a2266656564222c22656e7669726f6e6d656e74223a7b2276696577706f7274223a7b227769647468223a313238302c22686569676874223a3732307d2c2273637265656e223a7b227769647468223a313932302c22686569676874223a313038307d2c22757365724167656e74223a224d6f7a696c6c612f352e3020285831313b204c696e7578207838365f363429204368726f6d652f3135362e30222c226c616e6775616765223a22656e2d4742222c22706c6174666f726d223a224c696e7578207838365f3634222c2274696d657a6f6e65223a224575726f70652f4265726c696e222c22636f6e6e656374696f6e223a7b2265666665637469766554797065223a223467222c22646f776e6c696e6b223a31307d7d7d0200', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (2, '6cb79bed-7509-4066-95f7-1a6328eac805', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4836636237396265642d373530392d343036362d393566372d3161363332386561633830354838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633712504147455f4c4f414400e8f1abd5bf6886eb8cf7c1680000000e726563656e63790e726563656e63796c7b2275726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c227061676554797065223a2266656564227d0202', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (3, '018ab0cc-c215-4a55-89e2-6ed40a62266c', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4830313861623063632d633231352d346135352d383965322d3665643430613632323636634838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d312d31dcf5abd5bf6886eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0204', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (4, '05d3ccbb-b539-4eb6-b6b9-b382dc788910', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4830356433636362622d623533392d346562362d623662392d6233383264633738383931304838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d312d31d0f9abd5bf6886eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0206', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (5, 'b094e0f4-5a85-4d86-a564-32749534f917', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4862303934653066342d356138352d346438362d613536342d3332373439353334663931374838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d663333643561653433346337084c494b45020e7669642d312d31c4fdabd5bf6886eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d312d31227d0208', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (6, '0551460a-76d5-4540-8dbb-7afa8dfab377', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4830353531343630612d373664352d343534302d386462622d3761666138646661623337374838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d322d32b881acd5bf6886eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d020a', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (7, '31012303-109e-4de3-ba5a-a1b009888d4c', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4833313031323330332d313039652d346465332d626135612d6131623030393838386434634838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d322d32ac85acd5bf6886eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d020c', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (8, '408d0ec4-9732-40c0-a3eb-5fb5dd59da25', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4834303864306563342d393733322d343063302d613365622d3566623564643539646132354838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633716564944454f5f454e444544020e7669642d322d32a089acd5bf6886eb8cf7c168020ad7a3703d0aef3f020000000000003d40000e726563656e63790e726563656e6379767b226475726174696f6e223a33302c22746f74616c5761746368656454696d65223a32392c22636f6d706c6574696f6e52617465223a302e39377d020e', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (9, 'bbd1a9d7-e41f-4e55-9572-3816e4c41386', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4862626431613964372d653431662d346535352d393537322d3338313665346334313338364838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d332d33948dacd5bf6886eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0210', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (10, '4c7358d9-43a3-4dd8-b836-55212ff9642e', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4834633733353864392d343361332d346464382d623833362d3535323132666639363432654838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d332d338891acd5bf6886eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0212', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (11, '56180faa-888c-496a-a101-944da63a1393', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4835363138306661612d383838632d343936612d613130312d3934346461363361313339334838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d663333643561653433346337084c494b45020e7669642d332d33fc94acd5bf6886eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d332d33227d0214', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (12, '726ecb6f-efc1-4fbe-90ae-9186c0b878eb', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4837323665636236662d656663312d346662652d393061652d3931383663306238373865624838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d342d34f098acd5bf6886eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0216', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (13, '2ece40d0-f749-4f7c-ad88-1b8fd93b6714', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4832656365343064302d663734392d346637632d616438382d3162386664393362363731344838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d342d34e49cacd5bf6886eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0218', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (14, '85fddb9e-0814-4460-a81b-c97e3544c580', '835bb865-1da4-4f38-9428-3fd4ba920a20', '\x4838356664646239652d303831342d343436302d613831622d6339376533353434633538304838333562623836352d316461342d346633382d393432382d3366643462613932306132304835356664343834352d353230342d346362322d626538612d36353664303830643933323812757067726164652d304837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d6633336435616534333463371653455353494f4e5f454e4400d8a0acd5bf6886eb8cf7c1680000000e726563656e63790e726563656e6379687b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131227d021a', '2026-11-24 21:23:53.157439+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (15, '663d2f3c-3ef8-4487-ab27-d54bb147146b', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4836363364326633632d336566382d343438372d616232372d6435346262313437313436624866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d6639323932366537656563621a53455353494f4e5f535441525400cca4acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e637994077b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131222c22737461727454696d65223a313739353231393930303030302c227265666572726572223a2268747470733a2f2f6170702e70726f6c696669632e636f6d2f222c22696e697469616c55726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c22696e697469616c5061676554797065223a2266656564222c22656e7669726f6e6d656e74223a7b2276696577706f7274223a7b227769647468223a313238302c22686569676874223a3732307d2c2273637265656e223a7b227769647468223a313932302c22686569676874223a313038307d2c22757365724167656e74223a224d6f7a696c6c612f352e3020285831313b204c696e7578207838365f363429204368726f6d652f3135362e30222c226c616e6775616765223a22656e2d4742222c22706c6174666f726d223a224c696e7578207838365f3634222c2274696d657a6f6e65223a224575726f70652f4265726c696e222c22636f6e6e656374696f6e223a7b2265666665637469766554797065223a223467222c22646f776e6c696e6b223a31307d7d7d0200', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (16, 'b2f602f9-2b7a-48eb-bdff-4aee2322512e', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4862326636303266392d326237612d343865622d626466662d3461656532333232353132654866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636212504147455f4c4f414400c0a8acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e63796c7b2275726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c227061676554797065223a2266656564227d0202', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (17, 'b2df56f6-ffcb-4a38-877a-4e8f35c70492', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4862326466353666362d666663622d346133382d383737612d3465386633356337303439324866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636214564944454f5f504c4159020e7669642d322d32b4acacd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0204', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (18, 'd6df1f63-fdb7-40c5-8ba7-5bcb309d9d59', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4864366466316636332d666462372d343063352d386261372d3562636233303964396435394866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636220564944454f5f574154434845445f3153020e7669642d322d32a8b0acd5bf68b2eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0206', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (19, '5ead5000-4f01-4d74-9bc2-c461f947a77c', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4835656164353030302d346630312d346437342d396263322d6334363166393437613737634866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d663932393236653765656362084c494b45020e7669642d322d329cb4acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d322d32227d0208', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (20, 'd9d31d87-f32a-4e68-a387-3618fdf2f41d', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4864396433316438372d663332612d346536382d613338372d3336313866646632663431644866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636214564944454f5f504c4159020e7669642d332d3390b8acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d020a', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (21, '221bf361-f42c-47e1-9856-abf28217f17b', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4832323162663336312d663432632d343765312d393835362d6162663238323137663137624866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636220564944454f5f574154434845445f3153020e7669642d332d3384bcacd5bf68b2eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d020c', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (22, '0bbe87a1-444c-4d95-8289-c6d431f3dfbe', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4830626265383761312d343434632d346439352d383238392d6336643433316633646662654866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636216564944454f5f454e444544020e7669642d332d33f8bfacd5bf68b2eb8cf7c168020ad7a3703d0aef3f020000000000003d40000e726563656e63790e726563656e6379767b226475726174696f6e223a33302c22746f74616c5761746368656454696d65223a32392c22636f6d706c6574696f6e52617465223a302e39377d020e', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (23, '973ab848-ae04-4ca6-b097-27a4e2bb25a5', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4839373361623834382d616530342d346361362d623039372d3237613465326262323561354866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636214564944454f5f504c4159020e7669642d342d34ecc3acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0210', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (24, '1dfacaee-dac9-4732-a4a6-581cff67e4e2', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4831646661636165652d646163392d343733322d613461362d3538316366663637653465324866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636220564944454f5f574154434845445f3153020e7669642d342d34e0c7acd5bf68b2eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0212', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (25, 'ed774c8b-7d2b-4faf-be40-50c1d04674cc', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4865643737346338622d376432622d346661662d626534302d3530633164303436373463634866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d663932393236653765656362084c494b45020e7669642d342d34d4cbacd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d342d34227d0214', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (26, 'd4f5ee79-4c4f-48dc-832f-1ccffa68e321', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4864346635656537392d346334662d343864632d383332662d3163636666613638653332314866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636214564944454f5f504c4159020e7669642d352d35c8cfacd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0216', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (27, 'ff96cb46-c6c2-415c-95e3-4ad64da8fce7', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4866663936636234362d633663322d343135632d393565332d3461643634646138666365374866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d66393239323665376565636220564944454f5f574154434845445f3153020e7669642d352d35bcd3acd5bf68b2eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0218', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (28, 'bf5509be-4661-4ce5-8be9-073436bcb73f', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '\x4862663535303962652d343636312d346365352d386265392d3037333433366263623733664866393966393630312d373338392d343965332d623331622d6336386562653535343863324834353761383637362d343531352d346535622d613534302d34373635326536643665343512757067726164652d314837346538373862332d343031302d346466352d393231642d3662646465343738633766364862613965313238622d623365332d346465622d396633352d6639323932366537656563621653455353494f4e5f454e4400b0d7acd5bf68b2eb8cf7c1680000000e726563656e63790e726563656e6379687b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131227d021a', '2026-11-24 21:23:53.178474+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (29, '36b0fee4-597a-4cff-929f-196ae7b52eff', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4833366230666565342d353937612d346366662d393239662d3139366165376235326566664863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d6633336435616534333463371a53455353494f4e5f535441525400a4dbacd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e637994077b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131222c22737461727454696d65223a313739353231393930303030302c227265666572726572223a2268747470733a2f2f6170702e70726f6c696669632e636f6d2f222c22696e697469616c55726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c22696e697469616c5061676554797065223a2266656564222c22656e7669726f6e6d656e74223a7b2276696577706f7274223a7b227769647468223a313238302c22686569676874223a3732307d2c2273637265656e223a7b227769647468223a313932302c22686569676874223a313038307d2c22757365724167656e74223a224d6f7a696c6c612f352e3020285831313b204c696e7578207838365f363429204368726f6d652f3135362e30222c226c616e6775616765223a22656e2d4742222c22706c6174666f726d223a224c696e7578207838365f3634222c2274696d657a6f6e65223a224575726f70652f4265726c696e222c22636f6e6e656374696f6e223a7b2265666665637469766554797065223a223467222c22646f776e6c696e6b223a31307d7d7d0200', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (30, 'c4d5ac67-fa90-4149-b706-fd5dce8cb6b6', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4863346435616336372d666139302d343134392d623730362d6664356463653863623662364863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633712504147455f4c4f41440098dfacd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e63796c7b2275726c223a2268747470733a2f2f73747564792e6578616d706c652e6f72672f222c227061676554797065223a2266656564227d0202', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (31, '188bc8d1-dc4c-43a8-8643-fce7993e3ba2', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4831383862633864312d646334632d343361382d383634332d6663653739393365336261324863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d332d338ce3acd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0204', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (32, 'c21e0255-f8b5-4f8f-bf3b-1ead372ee330', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4863323165303235352d663862352d346638662d626633622d3165616433373265653333304863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d332d3380e7acd5bf68d0eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0206', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (33, '602643cf-999e-470e-b9e6-f8ea440f59d5', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4836303236343363662d393939652d343730652d623965362d6638656134343066353964354863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d663333643561653433346337084c494b45020e7669642d332d33f4eaacd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d332d33227d0208', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (34, 'b2337130-f609-40ce-9ee0-0874cd02916b', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4862323333373133302d663630392d343063652d396565302d3038373463643032393136624863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d342d34e8eeacd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d020a', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (35, '972f0a06-f998-4ff5-8fef-7bd853190285', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4839373266306130362d663939382d346666352d386665662d3762643835333139303238354863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d342d34dcf2acd5bf68d0eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d020c', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (36, 'c1824114-f1ba-4ad1-9736-38b2140f2d8b', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4863313832343131342d663162612d346164312d393733362d3338623231343066326438624863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633716564944454f5f454e444544020e7669642d342d34d0f6acd5bf68d0eb8cf7c168020ad7a3703d0aef3f020000000000003d40000e726563656e63790e726563656e6379767b226475726174696f6e223a33302c22746f74616c5761746368656454696d65223a32392c22636f6d706c6574696f6e52617465223a302e39377d020e', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (37, '86a1658a-e4b8-4872-bbf9-43fe1f48b061', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4838366131363538612d653462382d343837322d626266392d3433666531663438623036314863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d352d35c4faacd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0210', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (38, '5d79d987-1c08-41f2-87d5-644979a0520c', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4835643739643938372d316330382d343166322d383764352d3634343937396130353230634863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d352d35b8feacd5bf68d0eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0212', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (39, '042cc66a-947c-43f1-a6b8-55df83b7d358', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4830343263633636612d393437632d343366312d613662382d3535646638336237643335384863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d663333643561653433346337084c494b45020e7669642d352d35ac82add5bf68d0eb8cf7c1680000000e726563656e63790e726563656e63792a7b22766964656f4964223a227669642d352d35227d0214', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (40, '42e970e7-9a5a-4c58-8720-32a36007a3a0', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4834326539373065372d396135612d346335382d383732302d3332613336303037613361304863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633714564944454f5f504c4159020e7669642d362d36a086add5bf68d0eb8cf7c1680000000e726563656e63790e726563656e6379607b2263757272656e7454696d65223a302c226475726174696f6e223a33312c22706c61796261636b52617465223a317d0216', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (41, 'bce45b5f-d6d7-4a2d-9079-2ca76efc3005', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4862636534356235662d643664372d346132642d393037392d3263613736656663333030354863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d66333364356165343334633720564944454f5f574154434845445f3153020e7669642d362d36948aadd5bf68d0eb8cf7c168024c37894160e5a03f0252b81e85eb51f03f000e726563656e63790e726563656e6379667b2263757272656e7454696d65223a312e30322c226475726174696f6e223a33312c2270726f6772657373223a302e3033337d0218', '2026-11-24 21:23:53.192904+00');
INSERT INTO public.event_log OVERRIDING SYSTEM VALUE VALUES (42, '73ceaf22-1f1d-4e16-b15f-4725e540a74c', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', '\x4837336365616632322d316631642d346531362d623135662d3437323565353430613734634863636339643761652d363366642d343463302d623435662d6365383032386333363366664866653861343130312d373137362d343765372d383530652d66303362313263343464663412757067726164652d324837346538373862332d343031302d346466352d393231642d3662646465343738633766364836393062663561352d353663342d343538372d623764332d6633336435616534333463371653455353494f4e5f454e4400888eadd5bf68d0eb8cf7c1680000000e726563656e63790e726563656e6379687b2273657373696f6e4964223a2237623466306332652d376135312d346331652d396135312d306634643266316539633131227d021a', '2026-11-24 21:23:53.192904+00');

INSERT INTO public.events VALUES ('544d4a87-48ad-4704-a6ea-0772214152f9', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'SESSION_START', NULL, '2026-11-21 09:00:00.25+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"referrer": "https://app.prolific.com/", "sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11", "startTime": 1795219900000, "initialUrl": "https://study.example.org/", "environment": {"screen": {"width": 1920, "height": 1080}, "language": "en-GB", "platform": "Linux x86_64", "timezone": "Europe/Berlin", "viewport": {"width": 1280, "height": 720}, "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0", "connection": {"downlink": 10, "effectiveType": "4g"}}, "initialPageType": "feed"}', 0, 0, 1);
INSERT INTO public.events VALUES ('6cb79bed-7509-4066-95f7-1a6328eac805', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'PAGE_LOAD', NULL, '2026-11-21 09:00:00.5+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"url": "https://study.example.org/", "pageType": "feed"}', 1, 0, 2);
INSERT INTO public.events VALUES ('018ab0cc-c215-4a55-89e2-6ed40a62266c', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-1-1', '2026-11-21 09:00:00.75+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 2, 0, 3);
INSERT INTO public.events VALUES ('05d3ccbb-b539-4eb6-b6b9-b382dc788910', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-1-1', '2026-11-21 09:00:01+00', '2026-11-24 21:23:53.155+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 3, 0, 4);
INSERT INTO public.events VALUES ('b094e0f4-5a85-4d86-a564-32749534f917', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'LIKE', 'vid-1-1', '2026-11-21 09:00:01.25+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-1-1"}', 4, 0, 5);
INSERT INTO public.events VALUES ('0551460a-76d5-4540-8dbb-7afa8dfab377', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-2-2', '2026-11-21 09:00:01.5+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 5, 0, 6);
INSERT INTO public.events VALUES ('31012303-109e-4de3-ba5a-a1b009888d4c', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-2-2', '2026-11-21 09:00:01.75+00', '2026-11-24 21:23:53.155+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 6, 0, 7);
INSERT INTO public.events VALUES ('408d0ec4-9732-40c0-a3eb-5fb5dd59da25', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_ENDED', 'vid-2-2', '2026-11-21 09:00:02+00', '2026-11-24 21:23:53.155+00', 0.97, 29, NULL, 'recency', 'recency', '{"duration": 30, "completionRate": 0.97, "totalWatchedTime": 29}', 7, 0, 8);
INSERT INTO public.events VALUES ('bbd1a9d7-e41f-4e55-9572-3816e4c41386', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-3-3', '2026-11-21 09:00:02.25+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 8, 0, 9);
INSERT INTO public.events VALUES ('4c7358d9-43a3-4dd8-b836-55212ff9642e', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-3-3', '2026-11-21 09:00:02.5+00', '2026-11-24 21:23:53.155+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 9, 0, 10);
INSERT INTO public.events VALUES ('56180faa-888c-496a-a101-944da63a1393', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'LIKE', 'vid-3-3', '2026-11-21 09:00:02.75+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-3-3"}', 10, 0, 11);
INSERT INTO public.events VALUES ('726ecb6f-efc1-4fbe-90ae-9186c0b878eb', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-4-4', '2026-11-21 09:00:03+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 11, 0, 12);
INSERT INTO public.events VALUES ('2ece40d0-f749-4f7c-ad88-1b8fd93b6714', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-4-4', '2026-11-21 09:00:03.25+00', '2026-11-24 21:23:53.155+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 12, 0, 13);
INSERT INTO public.events VALUES ('85fddb9e-0814-4460-a81b-c97e3544c580', '835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', 'upgrade-0', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'SESSION_END', NULL, '2026-11-21 09:00:03.5+00', '2026-11-24 21:23:53.155+00', NULL, NULL, NULL, 'recency', 'recency', '{"sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11"}', 13, 0, 14);
INSERT INTO public.events VALUES ('663d2f3c-3ef8-4487-ab27-d54bb147146b', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'SESSION_START', NULL, '2026-11-21 09:00:03.75+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"referrer": "https://app.prolific.com/", "sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11", "startTime": 1795219900000, "initialUrl": "https://study.example.org/", "environment": {"screen": {"width": 1920, "height": 1080}, "language": "en-GB", "platform": "Linux x86_64", "timezone": "Europe/Berlin", "viewport": {"width": 1280, "height": 720}, "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0", "connection": {"downlink": 10, "effectiveType": "4g"}}, "initialPageType": "feed"}', 0, 0, 15);
INSERT INTO public.events VALUES ('b2f602f9-2b7a-48eb-bdff-4aee2322512e', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'PAGE_LOAD', NULL, '2026-11-21 09:00:04+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"url": "https://study.example.org/", "pageType": "feed"}', 1, 0, 16);
INSERT INTO public.events VALUES ('b2df56f6-ffcb-4a38-877a-4e8f35c70492', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_PLAY', 'vid-2-2', '2026-11-21 09:00:04.25+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 2, 0, 17);
INSERT INTO public.events VALUES ('d6df1f63-fdb7-40c5-8ba7-5bcb309d9d59', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_WATCHED_1S', 'vid-2-2', '2026-11-21 09:00:04.5+00', '2026-11-24 21:23:53.177+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 3, 0, 18);
INSERT INTO public.events VALUES ('5ead5000-4f01-4d74-9bc2-c461f947a77c', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'LIKE', 'vid-2-2', '2026-11-21 09:00:04.75+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-2-2"}', 4, 0, 19);
INSERT INTO public.events VALUES ('d9d31d87-f32a-4e68-a387-3618fdf2f41d', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_PLAY', 'vid-3-3', '2026-11-21 09:00:05+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 5, 0, 20);
INSERT INTO public.events VALUES ('221bf361-f42c-47e1-9856-abf28217f17b', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_WATCHED_1S', 'vid-3-3', '2026-11-21 09:00:05.25+00', '2026-11-24 21:23:53.177+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 6, 0, 21);
INSERT INTO public.events VALUES ('0bbe87a1-444c-4d95-8289-c6d431f3dfbe', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_ENDED', 'vid-3-3', '2026-11-21 09:00:05.5+00', '2026-11-24 21:23:53.177+00', 0.97, 29, NULL, 'recency', 'recency', '{"duration": 30, "completionRate": 0.97, "totalWatchedTime": 29}', 7, 0, 22);
INSERT INTO public.events VALUES ('973ab848-ae04-4ca6-b097-27a4e2bb25a5', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_PLAY', 'vid-4-4', '2026-11-21 09:00:05.75+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 8, 0, 23);
INSERT INTO public.events VALUES ('1dfacaee-dac9-4732-a4a6-581cff67e4e2', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_WATCHED_1S', 'vid-4-4', '2026-11-21 09:00:06+00', '2026-11-24 21:23:53.177+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 9, 0, 24);
INSERT INTO public.events VALUES ('ed774c8b-7d2b-4faf-be40-50c1d04674cc', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'LIKE', 'vid-4-4', '2026-11-21 09:00:06.25+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-4-4"}', 10, 0, 25);
INSERT INTO public.events VALUES ('d4f5ee79-4c4f-48dc-832f-1ccffa68e321', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_PLAY', 'vid-5-5', '2026-11-21 09:00:06.5+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 11, 0, 26);
INSERT INTO public.events VALUES ('ff96cb46-c6c2-415c-95e3-4ad64da8fce7', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'VIDEO_WATCHED_1S', 'vid-5-5', '2026-11-21 09:00:06.75+00', '2026-11-24 21:23:53.177+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 12, 0, 27);
INSERT INTO public.events VALUES ('bf5509be-4661-4ce5-8be9-073436bcb73f', 'f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', 'upgrade-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', 'SESSION_END', NULL, '2026-11-21 09:00:07+00', '2026-11-24 21:23:53.177+00', NULL, NULL, NULL, 'recency', 'recency', '{"sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11"}', 13, 0, 28);
INSERT INTO public.events VALUES ('36b0fee4-597a-4cff-929f-196ae7b52eff', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'SESSION_START', NULL, '2026-11-21 09:00:07.25+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"referrer": "https://app.prolific.com/", "sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11", "startTime": 1795219900000, "initialUrl": "https://study.example.org/", "environment": {"screen": {"width": 1920, "height": 1080}, "language": "en-GB", "platform": "Linux x86_64", "timezone": "Europe/Berlin", "viewport": {"width": 1280, "height": 720}, "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0", "connection": {"downlink": 10, "effectiveType": "4g"}}, "initialPageType": "feed"}', 0, 0, 29);
INSERT INTO public.events VALUES ('c4d5ac67-fa90-4149-b706-fd5dce8cb6b6', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'PAGE_LOAD', NULL, '2026-11-21 09:00:07.5+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"url": "https://study.example.org/", "pageType": "feed"}', 1, 0, 30);
INSERT INTO public.events VALUES ('188bc8d1-dc4c-43a8-8643-fce7993e3ba2', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-3-3', '2026-11-21 09:00:07.75+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 2, 0, 31);
INSERT INTO public.events VALUES ('c21e0255-f8b5-4f8f-bf3b-1ead372ee330', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-3-3', '2026-11-21 09:00:08+00', '2026-11-24 21:23:53.192+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 3, 0, 32);
INSERT INTO public.events VALUES ('602643cf-999e-470e-b9e6-f8ea440f59d5', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'LIKE', 'vid-3-3', '2026-11-21 09:00:08.25+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-3-3"}', 4, 0, 33);
INSERT INTO public.events VALUES ('b2337130-f609-40ce-9ee0-0874cd02916b', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-4-4', '2026-11-21 09:00:08.5+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 5, 0, 34);
INSERT INTO public.events VALUES ('972f0a06-f998-4ff5-8fef-7bd853190285', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-4-4', '2026-11-21 09:00:08.75+00', '2026-11-24 21:23:53.192+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 6, 0, 35);
INSERT INTO public.events VALUES ('c1824114-f1ba-4ad1-9736-38b2140f2d8b', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_ENDED', 'vid-4-4', '2026-11-21 09:00:09+00', '2026-11-24 21:23:53.192+00', 0.97, 29, NULL, 'recency', 'recency', '{"duration": 30, "completionRate": 0.97, "totalWatchedTime": 29}', 7, 0, 36);
INSERT INTO public.events VALUES ('86a1658a-e4b8-4872-bbf9-43fe1f48b061', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-5-5', '2026-11-21 09:00:09.25+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 8, 0, 37);
INSERT INTO public.events VALUES ('5d79d987-1c08-41f2-87d5-644979a0520c', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-5-5', '2026-11-21 09:00:09.5+00', '2026-11-24 21:23:53.192+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 9, 0, 38);
INSERT INTO public.events VALUES ('042cc66a-947c-43f1-a6b8-55df83b7d358', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'LIKE', 'vid-5-5', '2026-11-21 09:00:09.75+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"videoId": "vid-5-5"}', 10, 0, 39);
INSERT INTO public.events VALUES ('42e970e7-9a5a-4c58-8720-32a36007a3a0', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_PLAY', 'vid-6-6', '2026-11-21 09:00:10+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"duration": 31, "currentTime": 0, "playbackRate": 1}', 11, 0, 40);
INSERT INTO public.events VALUES ('bce45b5f-d6d7-4a2d-9079-2ca76efc3005', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'VIDEO_WATCHED_1S', 'vid-6-6', '2026-11-21 09:00:10.25+00', '2026-11-24 21:23:53.192+00', 0.033, 1.02, NULL, 'recency', 'recency', '{"duration": 31, "progress": 0.033, "currentTime": 1.02}', 12, 0, 41);
INSERT INTO public.events VALUES ('73ceaf22-1f1d-4e16-b15f-4725e540a74c', 'ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'upgrade-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', 'SESSION_END', NULL, '2026-11-21 09:00:10.5+00', '2026-11-24 21:23:53.192+00', NULL, NULL, NULL, 'recency', 'recency', '{"sessionId": "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11"}', 13, 0, 42);

INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'a108779d-b56e-4083-9bb2-1cb79a83f2bf', 0);
INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'c95678df-d356-49d7-b638-ea40fcdd9155', 1);
INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '867e41b2-4a7d-4f9a-902d-326880a04793', 2);
INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '9fda291d-026f-48c3-8168-baa4ba4cde71', 3);
INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '5e8f18c1-ba58-490f-bc00-499cf853c252', 4);
INSERT INTO public.experiment_videos VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'bc819eb6-3fd2-472c-b9c6-654024724069', 5);

INSERT INTO public.experiments VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'Upgrade study', '', 'running', '2026-11-24 21:23:53.1+00', '2026-11-24 21:23:53.124+00');

INSERT INTO public.groups VALUES ('690bf5a5-56c4-4587-b7d3-f33d5ae434c7', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'Arm 1', 1, 'recency', 'recency', 'grid-desktop', 'grid-desktop', '{}', '2026-11-24 21:23:53.109+00', '2026-11-24 21:23:53.109+00');
INSERT INTO public.groups VALUES ('ba9e128b-b3e3-4deb-9f35-f92926e7eecb', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'Arm 2', 1, 'recency', 'recency', 'grid-desktop', 'grid-desktop', '{}', '2026-11-24 21:23:53.112+00', '2026-11-24 21:23:53.112+00');

INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-1-1', 4, 2, '2026-11-21 09:00:01.25+00', '2026-11-24 21:23:53.155+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-2-2', 3, 2, '2026-11-21 09:00:02+00', '2026-11-24 21:23:53.155+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-3-3', 4, 2, '2026-11-21 09:00:02.75+00', '2026-11-24 21:23:53.155+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-4-4', 1, 1, '2026-11-21 09:00:03.25+00', '2026-11-24 21:23:53.155+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-2-2', 4, 2, '2026-11-21 09:00:04.75+00', '2026-11-24 21:23:53.177+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-3-3', 3, 2, '2026-11-21 09:00:05.5+00', '2026-11-24 21:23:53.177+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-4-4', 4, 2, '2026-11-21 09:00:06.25+00', '2026-11-24 21:23:53.177+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', '457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-5-5', 1, 1, '2026-11-21 09:00:06.75+00', '2026-11-24 21:23:53.177+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-3-3', 4, 2, '2026-11-21 09:00:08.25+00', '2026-11-24 21:23:53.192+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-4-4', 3, 2, '2026-11-21 09:00:09+00', '2026-11-24 21:23:53.192+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-5-5', 4, 2, '2026-11-21 09:00:09.75+00', '2026-11-24 21:23:53.192+00');
INSERT INTO public.interactions VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-6-6', 1, 1, '2026-11-21 09:00:10.25+00', '2026-11-24 21:23:53.192+00');

INSERT INTO public.knex_migrations VALUES (1, '001-foundation', 1, '2026-11-24 21:23:52.746+00');
INSERT INTO public.knex_migrations VALUES (2, '002-events', 1, '2026-11-24 21:23:52.784+00');
INSERT INTO public.knex_migrations VALUES (3, '003-recommenders', 1, '2026-11-24 21:23:52.802+00');
INSERT INTO public.knex_migrations VALUES (4, '004-model-runs', 1, '2026-11-24 21:23:52.81+00');
INSERT INTO public.knex_migrations VALUES (5, '020-surveys', 1, '2026-11-24 21:23:52.834+00');

INSERT INTO public.knex_migrations_lock VALUES (1, 0);

INSERT INTO public.model_runs VALUES ('61d7758f-b306-4a67-ac8c-9da240e3162f', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'queued', 'manual', '2026-11-24 21:23:53.207+00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

INSERT INTO public.recommenders VALUES ('lab-ranker', 'external_http', 'Lab ranker', '', 'external', true, false, '{"url": "http://127.0.0.1:9/rank", "method": "POST", "headers": {}, "video_id_path": "video_ids", "timeout_seconds": 5}', '2026-11-24 21:23:53.137+00', '2026-11-24 21:23:53.137+00');

INSERT INTO public.session_activity VALUES ('835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-21 09:00:00.25+00', '2026-11-21 09:00:03.5+00', '2026-11-24 21:23:53.155+00', 14, 13, '2026-11-24 21:23:53.155+00');
INSERT INTO public.session_activity VALUES ('f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-21 09:00:03.75+00', '2026-11-21 09:00:07+00', '2026-11-24 21:23:53.177+00', 14, 13, '2026-11-24 21:23:53.177+00');
INSERT INTO public.session_activity VALUES ('ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-21 09:00:07.25+00', '2026-11-21 09:00:10.5+00', '2026-11-24 21:23:53.192+00', 14, 13, '2026-11-24 21:23:53.192+00');

INSERT INTO public.sessions VALUES ('835bb865-1da4-4f38-9428-3fd4ba920a20', '55fd4845-5204-4cb2-be8a-656d080d9328', '2026-11-24 21:23:53.147+00', NULL);
INSERT INTO public.sessions VALUES ('f99f9601-7389-49e3-b31b-c68ebe5548c2', '457a8676-4515-4e5b-a540-47652e6d6e45', '2026-11-24 21:23:53.169+00', NULL);
INSERT INTO public.sessions VALUES ('ccc9d7ae-63fd-44c0-b45f-ce8028c363ff', 'fe8a4101-7176-47e7-850e-f03b12c44df4', '2026-11-24 21:23:53.187+00', NULL);

INSERT INTO public.survey_responses VALUES ('f0378b7e-a94e-4ba9-a3ff-d3d94477b95a', 'f781504d-e5e9-4488-9e45-28cffdbb1307', '55fd4845-5204-4cb2-be8a-656d080d9328', NULL, NULL, '[{"textInput": null, "questionId": "q1", "selections": [{"id": "b", "text": "Rarely", "value": 1}], "questionText": "How often?"}]', '2026-11-24 21:23:53.151+00');
INSERT INTO public.survey_responses VALUES ('7d0131c2-d14b-44df-9b7a-9957fea8539a', 'f781504d-e5e9-4488-9e45-28cffdbb1307', '457a8676-4515-4e5b-a540-47652e6d6e45', NULL, NULL, '[{"textInput": null, "questionId": "q1", "selections": [{"id": "a", "text": "Often", "value": 3}], "questionText": "How often?"}]', '2026-11-24 21:23:53.173+00');
INSERT INTO public.survey_responses VALUES ('bdf71db9-b0af-4098-a981-0e4dc4ec4109', 'f781504d-e5e9-4488-9e45-28cffdbb1307', 'fe8a4101-7176-47e7-850e-f03b12c44df4', NULL, NULL, '[{"textInput": null, "questionId": "q1", "selections": [{"id": "b", "text": "Rarely", "value": 1}], "questionText": "How often?"}]', '2026-11-24 21:23:53.189+00');

INSERT INTO public.surveys VALUES ('f781504d-e5e9-4488-9e45-28cffdbb1307', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'pre', 'Before', true, '[{"id": "q1", "text": "How often?", "type": "single", "answers": [{"id": "a", "text": "Often", "value": 3}, {"id": "b", "text": "Rarely", "value": 1}], "maxSelect": null, "minSelect": null}]', '2026-11-24 21:23:53.127+00', '2026-11-24 21:23:53.127+00');

INSERT INTO public.users VALUES ('55fd4845-5204-4cb2-be8a-656d080d9328', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'upgrade-0', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', '2026-11-24 21:23:53.143+00');
INSERT INTO public.users VALUES ('457a8676-4515-4e5b-a540-47652e6d6e45', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'upgrade-1', 'ba9e128b-b3e3-4deb-9f35-f92926e7eecb', '2026-11-24 21:23:53.165+00');
INSERT INTO public.users VALUES ('fe8a4101-7176-47e7-850e-f03b12c44df4', '74e878b3-4010-4df5-921d-6bdde478c7f6', 'upgrade-2', '690bf5a5-56c4-4587-b7d3-f33d5ae434c7', '2026-11-24 21:23:53.183+00');

INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-1-1', 1, '2026-11-24 21:23:53.155+00');
INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-2-2', 2, '2026-11-24 21:23:53.177+00');
INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-3-3', 3, '2026-11-24 21:23:53.192+00');
INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-4-4', 3, '2026-11-24 21:23:53.192+00');
INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-5-5', 2, '2026-11-24 21:23:53.192+00');
INSERT INTO public.video_view_counts VALUES ('74e878b3-4010-4df5-921d-6bdde478c7f6', 'vid-6-6', 1, '2026-11-24 21:23:53.192+00');

INSERT INTO public.videos VALUES ('a108779d-b56e-4083-9bb2-1cb79a83f2bf', 'vid-1-1', 'https://cdn.example.org/media/1.mp4', 'https://cdn.example.org/media/1.mp4', 'native', 'Video number 1', 'Channel 1', 'Education', NULL, '["demo", "t1"]', 31, 1000, NULL, '2026-01-02 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');
INSERT INTO public.videos VALUES ('c95678df-d356-49d7-b638-ea40fcdd9155', 'vid-2-2', 'https://cdn.example.org/media/2.mp4', 'https://cdn.example.org/media/2.mp4', 'native', 'Video number 2', 'Channel 2', 'Education', NULL, '["demo", "t2"]', 32, 2000, NULL, '2026-01-03 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');
INSERT INTO public.videos VALUES ('867e41b2-4a7d-4f9a-902d-326880a04793', 'vid-3-3', 'https://cdn.example.org/media/3.mp4', 'https://cdn.example.org/media/3.mp4', 'native', 'Video number 3', 'Channel 0', 'Education', NULL, '["demo", "t3"]', 33, 3000, NULL, '2026-01-04 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');
INSERT INTO public.videos VALUES ('9fda291d-026f-48c3-8168-baa4ba4cde71', 'vid-4-4', 'https://cdn.example.org/media/4.mp4', 'https://cdn.example.org/media/4.mp4', 'native', 'Video number 4', 'Channel 1', 'Education', NULL, '["demo", "t4"]', 34, 4000, NULL, '2026-01-05 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');
INSERT INTO public.videos VALUES ('5e8f18c1-ba58-490f-bc00-499cf853c252', 'vid-5-5', 'https://cdn.example.org/media/5.mp4', 'https://cdn.example.org/media/5.mp4', 'native', 'Video number 5', 'Channel 2', 'Education', NULL, '["demo", "t5"]', 35, 5000, NULL, '2026-01-06 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');
INSERT INTO public.videos VALUES ('bc819eb6-3fd2-472c-b9c6-654024724069', 'vid-6-6', 'https://cdn.example.org/media/6.mp4', 'https://cdn.example.org/media/6.mp4', 'native', 'Video number 6', 'Channel 0', 'Education', NULL, '["demo", "t6"]', 36, 6000, NULL, '2026-01-07 00:00:00+00', '[]', '2026-11-24 21:23:53.116+00', '2026-11-24 21:23:53.116+00');

INSERT INTO public.watched_videos VALUES ('55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-1-1', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.155+00', 0, 4);
INSERT INTO public.watched_videos VALUES ('55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-2-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.155+00', 0, 7);
INSERT INTO public.watched_videos VALUES ('55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-3-3', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.155+00', 0, 10);
INSERT INTO public.watched_videos VALUES ('55fd4845-5204-4cb2-be8a-656d080d9328', 'vid-4-4', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.155+00', 0, 13);
INSERT INTO public.watched_videos VALUES ('457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-2-2', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.177+00', 0, 18);
INSERT INTO public.watched_videos VALUES ('457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-3-3', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.177+00', 0, 21);
INSERT INTO public.watched_videos VALUES ('457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-4-4', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.177+00', 0, 24);
INSERT INTO public.watched_videos VALUES ('457a8676-4515-4e5b-a540-47652e6d6e45', 'vid-5-5', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.177+00', 0, 27);
INSERT INTO public.watched_videos VALUES ('fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-3-3', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.192+00', 0, 32);
INSERT INTO public.watched_videos VALUES ('fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-4-4', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.192+00', 0, 35);
INSERT INTO public.watched_videos VALUES ('fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-5-5', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.192+00', 0, 38);
INSERT INTO public.watched_videos VALUES ('fe8a4101-7176-47e7-850e-f03b12c44df4', 'vid-6-6', '74e878b3-4010-4df5-921d-6bdde478c7f6', '2026-11-24 21:23:53.192+00', 0, 41);

SELECT pg_catalog.setval('public.dead_letters_id_seq', 1, false);

SELECT pg_catalog.setval('public.event_log_position_seq', 42, true);

SELECT pg_catalog.setval('public.knex_migrations_id_seq', 5, true);

SELECT pg_catalog.setval('public.knex_migrations_lock_index_seq', 1, true);

ALTER TABLE ONLY public.admins
    ADD CONSTRAINT admins_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.admins
    ADD CONSTRAINT admins_username_unique UNIQUE (username);

ALTER TABLE ONLY public.app_settings
    ADD CONSTRAINT app_settings_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_pkey PRIMARY KEY (token_hash);

ALTER TABLE ONLY public.co_views
    ADD CONSTRAINT co_views_pkey PRIMARY KEY (experiment_id, video_a, video_b);

ALTER TABLE ONLY public.consumer_checkpoints
    ADD CONSTRAINT consumer_checkpoints_pkey PRIMARY KEY (consumer, partition);

ALTER TABLE ONLY public.dead_letters
    ADD CONSTRAINT dead_letters_consumer_partition_log_offset_unique UNIQUE (consumer, partition, log_offset);

ALTER TABLE ONLY public.dead_letters
    ADD CONSTRAINT dead_letters_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.event_log
    ADD CONSTRAINT event_log_event_id_key UNIQUE (event_id);

ALTER TABLE ONLY public.event_log
    ADD CONSTRAINT event_log_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (event_id);

ALTER TABLE ONLY public.experiment_videos
    ADD CONSTRAINT experiment_videos_pkey PRIMARY KEY (experiment_id, video_id);

ALTER TABLE ONLY public.experiments
    ADD CONSTRAINT experiments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT groups_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.interactions
    ADD CONSTRAINT interactions_pkey PRIMARY KEY (experiment_id, user_id, video_id);

ALTER TABLE ONLY public.item_similarity
    ADD CONSTRAINT item_similarity_pkey PRIMARY KEY (experiment_id, video_id, other_video_id);

ALTER TABLE ONLY public.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);

ALTER TABLE ONLY public.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.model_runs
    ADD CONSTRAINT model_runs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.recommendation_cache
    ADD CONSTRAINT recommendation_cache_experiment_id_user_id_video_id_unique UNIQUE (experiment_id, user_id, video_id);

ALTER TABLE ONLY public.recommendation_cache
    ADD CONSTRAINT recommendation_cache_pkey PRIMARY KEY (experiment_id, user_id, rank);

ALTER TABLE ONLY public.recommenders
    ADD CONSTRAINT recommenders_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.session_activity
    ADD CONSTRAINT session_activity_pkey PRIMARY KEY (session_id);

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.survey_responses
    ADD CONSTRAINT survey_responses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.surveys
    ADD CONSTRAINT surveys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_experiment_id_login_id_unique UNIQUE (experiment_id, login_id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.video_view_counts
    ADD CONSTRAINT video_view_counts_pkey PRIMARY KEY (experiment_id, video_id);

ALTER TABLE ONLY public.videos
    ADD CONSTRAINT videos_external_id_unique UNIQUE (external_id);

ALTER TABLE ONLY public.videos
    ADD CONSTRAINT videos_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.watched_videos
    ADD CONSTRAINT watched_videos_pkey PRIMARY KEY (user_id, video_id);

CREATE INDEX co_views_a_top_idx ON public.co_views USING btree (experiment_id, video_a, count DESC);

CREATE INDEX co_views_b_top_idx ON public.co_views USING btree (experiment_id, video_b, count DESC);

CREATE INDEX events_experiment_time_idx ON public.events USING btree (experiment_id, "timestamp");

CREATE INDEX events_user_time_idx ON public.events USING btree (user_id, "timestamp");

CREATE INDEX experiment_videos_video_id_index ON public.experiment_videos USING btree (video_id);

CREATE INDEX groups_experiment_id_index ON public.groups USING btree (experiment_id);

CREATE INDEX model_runs_experiment_id_created_at_index ON public.model_runs USING btree (experiment_id, created_at);

CREATE INDEX model_runs_queued_idx ON public.model_runs USING btree (created_at) WHERE ((status)::text = 'queued'::text);

CREATE INDEX session_activity_user_id_index ON public.session_activity USING btree (user_id);

CREATE INDEX sessions_user_id_created_at_index ON public.sessions USING btree (user_id, created_at);

CREATE INDEX survey_responses_about_session_id_index ON public.survey_responses USING btree (about_session_id);

CREATE INDEX survey_responses_export ON public.survey_responses USING btree (survey_id, created_at, id);

CREATE UNIQUE INDEX survey_responses_once ON public.survey_responses USING btree (survey_id, user_id) WHERE (about_session_key IS NULL);

CREATE UNIQUE INDEX survey_responses_once_per_session ON public.survey_responses USING btree (survey_id, user_id, about_session_key) WHERE (about_session_key IS NOT NULL);

CREATE INDEX survey_responses_user_id_index ON public.survey_responses USING btree (user_id);

CREATE INDEX surveys_experiment_id_created_at_index ON public.surveys USING btree (experiment_id, created_at);

CREATE UNIQUE INDEX surveys_one_active_per_kind ON public.surveys USING btree (experiment_id, kind) WHERE is_active;

CREATE INDEX users_group_id_index ON public.users USING btree (group_id);

CREATE TRIGGER survey_responses_rules BEFORE INSERT OR UPDATE ON public.survey_responses FOR EACH ROW EXECUTE FUNCTION public.feedlab_survey_responses_rules();

CREATE TRIGGER surveys_rules BEFORE INSERT OR UPDATE ON public.surveys FOR EACH ROW EXECUTE FUNCTION public.feedlab_surveys_rules();

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_admin_id_foreign FOREIGN KEY (admin_id) REFERENCES public.admins(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_user_id_foreign FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.experiment_videos
    ADD CONSTRAINT experiment_videos_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.experiment_videos
    ADD CONSTRAINT experiment_videos_video_id_foreign FOREIGN KEY (video_id) REFERENCES public.videos(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT groups_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.item_similarity
    ADD CONSTRAINT item_similarity_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.model_runs
    ADD CONSTRAINT model_runs_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.recommendation_cache
    ADD CONSTRAINT recommendation_cache_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.recommendation_cache
    ADD CONSTRAINT recommendation_cache_user_id_foreign FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_foreign FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.survey_responses
    ADD CONSTRAINT survey_responses_about_session_id_foreign FOREIGN KEY (about_session_id) REFERENCES public.sessions(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.survey_responses
    ADD CONSTRAINT survey_responses_survey_id_foreign FOREIGN KEY (survey_id) REFERENCES public.surveys(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.survey_responses
    ADD CONSTRAINT survey_responses_user_id_foreign FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.surveys
    ADD CONSTRAINT surveys_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_experiment_id_foreign FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_group_id_foreign FOREIGN KEY (group_id) REFERENCES public.groups(id) ON DELETE RESTRICT;
