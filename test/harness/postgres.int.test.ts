import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { createTestDatabase, dropTestDatabase, type TestDatabase } from "./database.ts";

async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const rows = await query(inject("postgresUrl"), `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
  return rows.length === 1;
}

describe("createTestDatabase", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  test("returns a URL to an empty feedlab_test_* database that stores and returns rows", async () => {
    const [current] = await query<{ name: string }>(db.url, "SELECT current_database() AS name");
    expect(current?.name).toBe(db.name);
    expect(db.name).toMatch(/^feedlab_test_[0-9a-f]{12}$/);

    await query(db.url, "CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
    await query(db.url, "INSERT INTO notes VALUES (1, 'ünïcode survives UTF8')");
    const rows = await query<{ body: string }>(db.url, "SELECT body FROM notes");

    expect(rows).toEqual([{ body: "ünïcode survives UTF8" }]);
  });

  test("gives each call a different database", async () => {
    const other = await createTestDatabase();
    try {
      expect(other.name).not.toBe(db.name);
      expect(await query(other.url, "SELECT 1 FROM pg_tables WHERE tablename = 'notes'")).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  test("drop removes the database even when a test left a session open", async () => {
    const doomed = await createTestDatabase();
    const forgotten = new pg.Client({ connectionString: doomed.url });
    // The server ends this session during the drop; that is the point, not a failure.
    forgotten.on("error", () => {});
    await forgotten.connect();

    await doomed.drop();

    expect(await databaseExists(doomed.name)).toBe(false);
    await forgotten.end().catch(() => {});
  });

  test("refuses a prefix without 'test' before creating anything", async () => {
    await expect(createTestDatabase("feedlab")).rejects.toThrow(/does not contain "test"/);
  });
});

describe("dropTestDatabase", () => {
  test("refuses to drop a database whose name lacks 'test' and leaves it in place", async () => {
    const admin = inject("postgresUrl");
    const name = `feedlab_scratch_${Date.now()}`;
    await query(admin, `CREATE DATABASE "${name}"`);
    try {
      await expect(dropTestDatabase(name)).rejects.toThrow(/does not contain "test"/);
      expect(await databaseExists(name)).toBe(true);
    } finally {
      // The guard is what is under test here, so clean up past it.
      await query(admin, `DROP DATABASE IF EXISTS "${name}"`);
    }
  });
});
