import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from session activity: a session is one participant's own. */
export const eraseSessionActivity = (sql: Knex.Transaction, userIds: readonly string[]): Promise<number> =>
  deleteOwned(sql, "session_activity", userIds);
