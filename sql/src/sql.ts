import type { Knex } from "knex";

/**
 * The narrow query interface read-model queries and migrations run on: a knex instance or a
 * transaction. Queries take it as a parameter, so the caller decides the connection (a request's
 * pool, a replay's transaction, a projector batch's transaction).
 */
export type Sql = Knex | Knex.Transaction;

/**
 * Rows of a `raw` result; pg and PGlite both answer `{ rows }`. Every workspace reads raw results
 * through this one function.
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

/** A statement not yet run: knex runs a builder or a raw statement when it is first awaited. */
type Statement = PromiseLike<unknown> & Pick<NodeJS.EventEmitter, "once" | "off">;

/**
 * Runs statements on one transaction in order, sending each as soon as the one before it has been
 * sent rather than answered: on the embedded database the session's statements queue in the
 * database's thread and run back to back, so a batch of independent statements costs one round
 * trip instead of one each (the transaction holds the database for less time). On PostgreSQL they
 * go one after another (node-postgres is deprecating its queue of a connection's statements). The
 * statements run in the given order, so they lock rows in that order. Answers each statement's
 * result; when one fails, the first failure in order is thrown, after every statement has settled.
 */
export async function pipelined(via: Sql, statements: readonly Statement[]): Promise<unknown[]> {
  if (via.client.config.client === "pg") {
    const results: unknown[] = [];
    for (const statement of statements) results.push(await statement);
    return results;
  }
  const settled: Promise<PromiseSettledResult<unknown>>[] = [];
  for (const statement of statements) {
    // Knex emits "query" on a statement just before it hands the statement to the connection.
    const sent = new Promise<void>((resolve) => statement.once("query", () => resolve()));
    const done = Promise.resolve(statement).then(
      (value) => ({ status: "fulfilled", value }) as const,
      (reason: unknown) => ({ status: "rejected", reason }) as const,
    );
    settled.push(done);
    await Promise.race([sent, done]);
  }
  const results = await Promise.all(settled);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value);
}
