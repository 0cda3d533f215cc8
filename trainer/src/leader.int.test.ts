import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/harness/database.ts";
import { holdLeadership } from "./leader.ts";

const until = async (check: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
};

/**
 * Returns once a process that does not hold the trainer lock has tried to take it twice (its
 * connection shows the try with two different start times in `pg_stat_activity`), so it has had the
 * answer to its first try and acted on it before trying again.
 */
async function untilTriedTwiceWithoutTheLock(url: string): Promise<void> {
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  try {
    const starts = new Set<string>();
    const deadline = Date.now() + 10_000;
    while (starts.size < 2) {
      if (Date.now() > deadline) throw new Error("no second trainer tried the lock twice");
      const { rows } = await watcher.query<{ started: string }>(
        `select query_start::text as started from pg_stat_activity
          where datname = current_database() and query like 'select pg_try_advisory_lock%'
            and pid not in (select pid from pg_locks where locktype = 'advisory' and granted)`,
      );
      for (const r of rows) starts.add(r.started);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await watcher.end();
  }
}

describe("trainer leadership", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("lets one trainer lead at a time and hands over when the leader stops", async () => {
    const logger = pino({ level: "silent" });
    const first = holdLeadership({ databaseUrl: db.url, logger, retryMs: 100 });
    expect(await until(() => first.isLeader(), 5000)).toBe(true);
    const second = holdLeadership({ databaseUrl: db.url, logger, retryMs: 100 });
    await untilTriedTwiceWithoutTheLock(db.url);
    expect(second.isLeader()).toBe(false);
    await first.stop();
    expect(await until(() => second.isLeader(), 5000)).toBe(true);
    await second.stop();
  });

  it("leads at once on the embedded database, which is single-process", async () => {
    const only = holdLeadership({ databaseUrl: null, logger: pino({ level: "silent" }) });
    expect(only.isLeader()).toBe(true);
    await only.stop();
  });
});
