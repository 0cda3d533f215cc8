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
