// The surveys' tables (`surveys`, `survey_responses`, `survey_dismissals`), for the api's other
// features: they call these, never its SQL (docs/architecture.md, "Tables and their owners"). This
// folder imports no feature.
import type { Knex } from "knex";
import { JSON_IDS } from "../../db/id-list.ts";

const count = async (q: Knex.QueryBuilder): Promise<number> =>
  Number(((await q.count({ n: "*" }).first()) as { n?: string | number } | undefined)?.n ?? 0);

/** How many survey responses and dismissals the participants have (erasure counts them before they go). */
export async function answersOf(
  trx: Knex.Transaction,
  userIds: readonly string[],
): Promise<{ responses: number; dismissals: number }> {
  const ids = JSON.stringify(userIds);
  const responses = await count(trx("survey_responses").whereRaw(`user_id in ${JSON_IDS}`, [ids]));
  const dismissals = await count(trx("survey_dismissals").whereRaw(`user_id in ${JSON_IDS}`, [ids]));
  return { responses, dismissals };
}

/** Columns of the experiment's surveys (only its active ones with `active`), oldest first. */
export async function surveysOf<T>(
  db: Knex | Knex.Transaction,
  experimentId: string,
  { active = false }: { active?: boolean },
  ...columns: string[]
): Promise<T[]> {
  return (await db("surveys")
    .where(active ? { experiment_id: experimentId, is_active: true } : { experiment_id: experimentId })
    .orderBy("created_at")
    .select(...columns)) as T[];
}

/** Whether the experiment has an active post survey. */
export async function hasActivePostSurvey(
  db: Knex | Knex.Transaction,
  experimentId: string,
): Promise<boolean> {
  return (
    (await db("surveys")
      .where({ experiment_id: experimentId, kind: "post", is_active: true })
      .first("id")) !== undefined
  );
}

/** The questions of the experiment's active pre survey (as stored), or null without one. */
export async function activePreSurveyQuestions(
  db: Knex | Knex.Transaction,
  experimentId: string,
): Promise<unknown | null> {
  const row = (await db("surveys")
    .where({ experiment_id: experimentId, kind: "pre", is_active: true })
    .first("questions")) as { questions: unknown } | undefined;
  return row === undefined ? null : row.questions;
}

/** Whether the experiment has an active pre survey. */
export async function hasActivePreSurvey(
  db: Knex | Knex.Transaction,
  experimentId: string,
): Promise<boolean> {
  return (await activePreSurveyQuestions(db, experimentId)) !== null;
}

/**
 * The option value (as text) that participant `u` (the outer query's alias of users) chose for a
 * question of a pre survey, by question id: their first pre survey response's (migration 031's
 * `answer_values`); null when they have none.
 */
export function preSurveyChoice(db: Knex | Knex.Transaction, questionId: string): Knex.Raw {
  return db.raw(
    `(select (r.answer_values::jsonb -> ?) ->> 0 from survey_responses r
       join surveys s on s.id = r.survey_id
       where r.user_id = u.id and s.kind = 'pre' and r.answer_values is not null
       order by r.created_at, r.id limit 1)`,
    [questionId],
  );
}

/** The experiment's active post survey for the participant: whether there is one, answered or dismissed. */
export async function postSurveyStateOf(
  db: Knex,
  experimentId: string,
  userId: string,
): Promise<{ active: boolean; answered: boolean; dismissed: boolean }> {
  const r = await db("surveys as s")
    .where({ "s.experiment_id": experimentId, "s.kind": "post", "s.is_active": true })
    .first<{ answered: boolean; dismissed: boolean } | undefined>(
      db.raw(
        "exists (select 1 from survey_responses r where r.survey_id = s.id and r.user_id = ?) as answered",
        [userId],
      ),
      db.raw(
        "exists (select 1 from survey_dismissals d where d.survey_id = s.id and d.user_id = ?) as dismissed",
        [userId],
      ),
    );
  return r
    ? { active: true, answered: r.answered, dismissed: r.dismissed }
    : { active: false, answered: false, dismissed: false };
}

/** The experiment's surveys, oldest first, each named in `language` (a text written per language). */
export async function surveyNamesOf(
  db: Knex,
  experimentId: string,
  language: string,
): Promise<{ id: string; name: string; kind: string }[]> {
  return (await db("surveys")
    .where({ experiment_id: experimentId })
    .orderBy("created_at")
    .select("id", "kind", db.raw("feedlab_text_in(name, ?) as name", [language]))) as {
    id: string;
    name: string;
    kind: string;
  }[];
}

/** The participants who answered a survey (whose survey measures its changes touch). */
export async function respondentsOf(db: Knex | Knex.Transaction, surveyId: string): Promise<string[]> {
  const rows = (await db("survey_responses").where({ survey_id: surveyId }).distinct("user_id")) as {
    user_id: string;
  }[];
  return rows.map((r) => r.user_id);
}
