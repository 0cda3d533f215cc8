import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from watched history: the rows are each one participant's own. */
export const eraseWatched = (sql: Knex.Transaction, userIds: readonly string[]): Promise<number> =>
  deleteOwned(sql, "watched_videos", userIds);
