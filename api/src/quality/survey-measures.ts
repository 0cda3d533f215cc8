import type { Knex } from "knex";

/** A participant's survey-side measures (docs/quality.md, "Surveys"). */
export interface SurveyMeasures {
  /** Timed responses' duration_ms summed over their surveys' questions, in seconds; null without one. */
  readonly seconds_per_question: number | null;
  /** Any response straight-lined (`straightLined`). */
  readonly straight_lined: boolean;
  readonly attention: { readonly passed: number; readonly failed: number };
}

const NO_SURVEYS: SurveyMeasures = {
  seconds_per_question: null,
  straight_lined: false,
  attention: { passed: 0, failed: 0 },
};

/** The columns `joinSurveyMeasures` adds, as the database answers them (all null without a response). */
export interface SurveyMeasureColumns {
  readonly s_timed_ms: number | string | null;
  readonly s_timed_questions: number | string | null;
  readonly s_straight_lined: boolean | null;
  readonly s_attention_passed: number | string | null;
  readonly s_attention_failed: number | string | null;
}

/** The measures a participant's row keeps, each selected as `s_<name>`. */
const MEASURES = ["timed_ms", "timed_questions", "straight_lined", "attention_passed", "attention_failed"];

/** The names of SurveyMeasureColumns, for a read that names its columns (manyRows). */
export const SURVEY_MEASURE_COLUMNS = MEASURES.map((c) => `s_${c}`);

/**
 * Left-joins each participant's survey measures (one row each, summed when their responses change:
 * `refreshSurveyMeasures`) to a query whose participant id is `userId`, selected as SurveyMeasureColumns.
 */
export function joinSurveyMeasures(db: Knex, q: Knex.QueryBuilder, userId: string): Knex.QueryBuilder {
  return q
    .leftJoin("participant_survey_measures as sm", "sm.user_id", userId)
    .select(...MEASURES.map((c) => db.ref(`sm.${c}`).as(`s_${c}`)));
}

/** A participant's survey measures from the columns `joinSurveyMeasures` added. */
export function surveyMeasuresOf(r: SurveyMeasureColumns): SurveyMeasures {
  if (r.s_straight_lined === null) return NO_SURVEYS;
  const questions = Number(r.s_timed_questions);
  return {
    seconds_per_question: questions === 0 ? null : Number(r.s_timed_ms) / 1000 / questions,
    straight_lined: r.s_straight_lined,
    attention: { passed: Number(r.s_attention_passed), failed: Number(r.s_attention_failed) },
  };
}

/**
 * Sums the survey measures of these participants of an experiment again from their responses, in the
 * caller's transaction (migration 033's `participant_survey_measures`): each response's verdict as
 * stored beside it (api/src/surveys/verdicts.ts), the timed responses' durations and their surveys'
 * question counts as they are now. Their rows are locked first, in id order, so two transactions that
 * change one participant's responses (two surveys answered at once; an answer stored while a survey is
 * judged again) sum one after the other and the later sees what the earlier wrote.
 */
export async function refreshSurveyMeasures(
  db: Knex | Knex.Transaction,
  experimentId: string,
  userIds: readonly string[],
): Promise<void> {
  if (userIds.length === 0) return;
  const ids = JSON.stringify([...new Set(userIds)].sort());
  await db.raw(
    `select count(*) from (select id from users where id in (select value::uuid from json_array_elements_text(?::json))
       order by id for no key update) as locked`,
    [ids],
  );
  // The surveys' question counts once, before the join (flattened into it, PostgreSQL counted each
  // response's survey questions again: three times the statement's time).
  await db.raw(
    `with s as materialized (
       select id, jsonb_array_length(questions) as questions from surveys where experiment_id = ?
     ),
     r as (
       select r.user_id, r.duration_ms, r.straight_lined, r.attention_passed, r.attention_failed, s.questions
       from survey_responses as r join s on s.id = r.survey_id
       where r.user_id in (select value::uuid from json_array_elements_text(?::json))
     )
     insert into participant_survey_measures as m (user_id, experiment_id, timed_ms, timed_questions,
       straight_lined, attention_passed, attention_failed)
     select u.id, u.experiment_id,
       coalesce(sum(r.duration_ms::float8) filter (where r.duration_ms is not null and r.questions > 0), 0),
       coalesce(sum(r.questions) filter (where r.duration_ms is not null and r.questions > 0), 0),
       coalesce(bool_or(r.straight_lined), false),
       coalesce(sum(r.attention_passed), 0), coalesce(sum(r.attention_failed), 0)
     from users as u left join r on r.user_id = u.id
     where u.id in (select value::uuid from json_array_elements_text(?::json))
     group by u.id, u.experiment_id
     on conflict (user_id) do update set timed_ms = excluded.timed_ms,
       timed_questions = excluded.timed_questions, straight_lined = excluded.straight_lined,
       attention_passed = excluded.attention_passed, attention_failed = excluded.attention_failed`,
    [experimentId, ids, ids],
  );
}

/** The recruiting parameters that identify a person on a recruiting platform. */
const PERSON_IDS = ["PROLIFIC_PID", "workerId"] as const;

/**
 * The participants of an experiment whose PROLIFIC_PID or workerId appears under another login of
 * the same experiment (every participant counts, simulated or excluded: a duplicate is one whoever
 * else holds the id). One statement over the experiment's users; with `userId`, over those who share
 * one of that participant's ids.
 */
export async function duplicateRecruitingIds(
  db: Knex,
  experimentId: string,
  userId?: string,
): Promise<Set<string>> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .whereNotNull("recruiting")
    .modify((q) => {
      if (userId === undefined) return;
      q.where((w) => {
        for (const k of PERSON_IDS) {
          w.orWhereRaw(
            `nullif(btrim(recruiting->>?), '') =
               (select nullif(btrim(me.recruiting->>?), '') from users me where me.id = ?)`,
            [k, k, userId],
          );
        }
      });
    })
    .select("id", ...PERSON_IDS.map((k) => db.raw("nullif(btrim(recruiting->>?), '') as ??", [k, k])))) as ({
    id: string;
  } & Record<(typeof PERSON_IDS)[number], string | null>)[];
  const holders = new Map<string, string[]>();
  for (const r of rows) {
    for (const k of PERSON_IDS) {
      const v = r[k];
      if (v === null) continue;
      const key = `${k}\u0000${v}`;
      holders.set(key, [...(holders.get(key) ?? []), r.id]);
    }
  }
  const dup = new Set<string>();
  for (const users of holders.values()) if (users.length > 1) for (const u of users) dup.add(u);
  return dup;
}
