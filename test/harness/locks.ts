import type { Knex } from "knex";
import type { Backend } from "./app.ts";

/**
 * Returns once `count` statements on this database wait for a lock, as PostgreSQL's `pg_locks` shows
 * them (asked through `trx`, the transaction that holds the lock), so a race test knows its requests
 * reached the lock instead of hoping a sleep was long enough. On PGlite there is nothing to wait for:
 * other sessions' statements queue in its worker until the open transaction ends
 * (sql/src/pglite-proxy.ts), so they run after the commit whenever they arrive.
 *
 * PostgreSQL keeps one snapshot of `pg_stat_activity` for the rest of a transaction once it is read,
 * so a poll inside `trx` would never see a session that connected after the first one (a request that
 * needed a new pooled connection): each poll clears that snapshot first.
 */
export async function untilWaitingForLocks(
  trx: Knex.Transaction,
  backend: Backend,
  count: number,
): Promise<void> {
  if (backend === "pglite") return;
  const deadline = performance.now() + 20_000;
  for (;;) {
    await trx.raw("select pg_stat_clear_snapshot()");
    const { rows } = (await trx.raw(
      `select count(*)::int as n from pg_locks
        where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`,
    )) as { rows: { n: number }[] };
    if ((rows[0]?.n ?? 0) >= count) return;
    if (performance.now() > deadline) throw new Error(`${count} statements never waited for a lock`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
