import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from participant quality: each session's rows, and each sum, are one participant's own. */
export async function eraseQuality(sql: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  return (
    (await deleteOwned(sql, "quality_sessions", userIds)) +
    (await deleteOwned(sql, "quality_timelines", userIds)) +
    (await deleteOwned(sql, "quality_participants", userIds))
  );
}
