import type { Knex } from "knex";

/**
 * The narrow query interface read-model queries and migrations run on: a knex instance or a
 * transaction. Queries take it as a parameter, so the caller decides the connection (a request's
 * pool, a replay's transaction, a projector batch's transaction).
 */
export type Sql = Knex | Knex.Transaction;

/**
 * Rows of a `raw` result; pg and PGlite both answer `{ rows }`. Every workspace reads raw results
 * through this one function (ingest is the lowest workspace that speaks SQL).
 */
export function rowsOf<T>(result: unknown): T[] {
  const rows = (result as { rows?: T[] }).rows;
  return Array.isArray(rows) ? rows : [];
}

/**
 * One schema change of a workspace's tables. `name` is recorded in `knex_migrations` and never
 * changes; it starts with the owning workspace (`projector/watched/001-table`).
 */
export interface Migration {
  readonly name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}
