import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from session activity and session time: a session is one participant's own. */
export const eraseSessionActivity = async (
  sql: Knex.Transaction,
  userIds: readonly string[],
): Promise<number> =>
  (await deleteOwned(sql, "session_activity", userIds)) + (await deleteOwned(sql, "session_time", userIds));
