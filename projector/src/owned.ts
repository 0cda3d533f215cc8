import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

/** SQL of the participants given as one JSON parameter: `user_id in ${USERS}`. */
export const USERS = "(select value::uuid from json_array_elements_text(?::json))";

/** Deletes a table's rows of the participants; answers how many. */
export async function deleteOwned(
  sql: Knex.Transaction,
  table: string,
  userIds: readonly string[],
): Promise<number> {
  const rows = rowsOf<{ n: string | number }>(
    await sql.raw(
      `with gone as (delete from ?? where user_id in ${USERS} returning 1) select count(*) as n from gone`,
      [table, JSON.stringify(userIds)],
    ),
  );
  return Number(rows[0]?.n ?? 0);
}
