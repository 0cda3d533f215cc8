import type { Knex } from "knex";
import { deleteOwned } from "../../owned.ts";

/** Erases participants from response latency: every row is one participant's, so theirs go. */
export function eraseResponseLatency(sql: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  return deleteOwned(sql, "response_latency", userIds);
}
