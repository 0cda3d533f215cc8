import { openDb } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/harness/database.ts";
import { migrate } from "./db.ts";

describe("migrations on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("apply once when four processes start together on a fresh database", async () => {
    const pools = Array.from({ length: 4 }, () => openDb({ databaseUrl: database.url, dataDir: "" }));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p.db)));
      // Exactly one of them applied the migrations; the others found nothing to do.
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
      expect(applied.flat()).toContain("001-foundation");
      const rows = (await pools[0]?.db("knex_migrations").select("name")) ?? [];
      expect(rows.map((r: { name: string }) => r.name)).toEqual(applied.flat());
    } finally {
      for (const p of pools) await p.close();
    }
  });
});
