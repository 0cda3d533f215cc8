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
});
