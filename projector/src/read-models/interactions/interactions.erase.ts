import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from the training interactions: the rows are each one participant's own. */
export const eraseInteractions = (sql: Knex.Transaction, userIds: readonly string[]): Promise<number> =>
  deleteOwned(sql, "interactions", userIds);
