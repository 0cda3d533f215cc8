import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type OpenDb, openDb } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/harness/database.ts";
import { migrate } from "./db.ts";
import { maintainDatabase } from "./maintenance.ts";

/** pg_class.reltuples is -1 until a table is first vacuumed or analyzed (PostgreSQL 14 and later). */
async function reltuples(db: OpenDb["db"], table: string): Promise<number> {
  const r = await db.raw("select reltuples::float8 as n from pg_class where relname = ?", [table]);
  return Number((r.rows ?? r)[0]?.n);
}

describe.each(["pglite", "postgres"] as const)("database maintenance on %s", (backend) => {
  let database: TestDatabase | null = null;
  let dir = "";
  let open: OpenDb;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "feedlab-maintenance-"));
    if (backend === "postgres") database = await createTestDatabase();
    open = openDb({ databaseUrl: database?.url ?? null, dataDir: dir });
    await migrate(open.db);
  });
  afterAll(async () => {
    await open?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the planner statistics for every table and vacuums the ones that churn", async () => {
    await open.db("experiments").insert({ id: "00000000-0000-4000-8000-000000000001", name: "M" });
    expect(await reltuples(open.db, "events")).toBe(-1);
    const pass = await maintainDatabase(open.db);
    expect(pass.statements.map((s) => s.sql)).toEqual(
      expect.arrayContaining(["VACUUM (ANALYZE) session_activity", "ANALYZE events", "ANALYZE event_log"]),
    );
    for (const table of ["events", "event_log", "session_activity", "recommendation_cache"]) {
      expect(await reltuples(open.db, table)).toBeGreaterThanOrEqual(0);
    }
  });

  it("leaves the tables that did not change alone, and analyzes one again once it grew by a tenth", async () => {
    await maintainDatabase(open.db);
    const quiet = await maintainDatabase(open.db);
    expect(quiet.statements).toEqual([]);
    expect(quiet.skipped).toBeGreaterThan(20);
    await addEvents(open.db, 2000);
    expect((await maintainDatabase(open.db)).statements.map((s) => s.sql)).toEqual(["ANALYZE events"]);
    expect(await reltuples(open.db, "events")).toBe(2000);
  });

  // PostgreSQL keeps its counts of changes across a restart (and runs autovacuum, so this pass never runs
  // there): the restart that forgets them is the embedded engine's.
  it.runIf(backend === "pglite")(
    "after a restart, which forgets the counts of changes, analyzes the tables that grew and only those",
    async () => {
      await maintainDatabase(open.db);
      await addEvents(open.db, 3000);
      await open.close();
      open = openDb({ databaseUrl: null, dataDir: dir });
      expect((await maintainDatabase(open.db)).statements.map((s) => s.sql)).toEqual(["ANALYZE events"]);
      expect(await reltuples(open.db, "events")).toBeGreaterThanOrEqual(5000);
    },
  );
});

/** Appends `n` events of one session straight to the events store. */
async function addEvents(db: OpenDb["db"], n: number): Promise<void> {
  await db.raw(
    `insert into events (event_id, session_id, user_id, login_id, experiment_id, event_type, timestamp,
       received_at, algorithm_feed, algorithm_watch, payload, log_partition, log_offset)
     select gen_random_uuid(), '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003',
       'm', '00000000-0000-4000-8000-000000000001', 'PAGE_LOAD', now(), now(), 'recency', 'recency', '{}', 0, g
     from generate_series((select coalesce(max(log_offset), 0) + 1 from events), (select coalesce(max(log_offset), 0) + ? from events)) g`,
    [n],
  );
}
