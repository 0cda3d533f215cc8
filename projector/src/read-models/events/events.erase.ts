import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from the events store: their events go. It runs last (the others read it). */
export const eraseEvents = (sql: Knex.Transaction, userIds: readonly string[]): Promise<number> =>
  deleteOwned(sql, "events", userIds);
