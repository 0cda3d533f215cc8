import { openDb } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../../test/harness/storage.ts";
import { manyRows } from "./linked-db.ts";
import { pipelined, rowsOf } from "./sql.ts";

describe.each(["pglite", "postgres"] as const)("pipelined statements and many rows (%s)", (backend) => {
  let storage: TestStorage;
  let opened: ReturnType<typeof openDb>;

  beforeAll(async () => {
    storage = await createTestStorage(backend);
    opened = openDb({
      databaseUrl: storage.env.DATABASE_URL ?? null,
      dataDir: storage.env.FEEDLAB_DATA_DIR ?? "",
    });
    await opened.db.raw("create table steps (n serial primary key, name text not null unique)");
  });
  afterAll(async () => {
    await opened?.close();
    await storage?.cleanup();
  });

  it("runs the statements in the given order and answers each one's result", async () => {
    const names = ["a", "b", "c", "d"];
    const answers = await opened.db.transaction((trx) =>
      pipelined(
        trx,
        names.map((name) => trx.raw("insert into steps (name) values (?) returning n, name", [name])),
      ),
    );
    const rows = answers.map((a) => rowsOf<{ n: number; name: string }>(a)[0]);
    expect(rows.map((r) => r?.name)).toEqual(names);
    const numbers = rows.map((r) => r?.n ?? 0);
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
  });

  it("throws the first statement that failed, and its transaction stores nothing", async () => {
    const attempt = opened.db.transaction((trx) =>
      pipelined(trx, [
        trx.raw("insert into steps (name) values ('e')"),
        trx.raw("insert into steps (name) values ('a')"),
        trx.raw("insert into steps (name) values ('f')"),
      ]),
    );
    await expect(attempt).rejects.toMatchObject({ code: "23505" });
    const stored = await opened.db("steps").whereIn("name", ["e", "f"]).select("name");
    expect(stored).toEqual([]);
  });

  it("answers a query's rows in its order with their values, and none for an empty result", async () => {
    const db = opened.db;
    const query = () =>
      db
        .from(db.raw("generate_series(1, 1500) as g"))
        .select(
          db.raw("g as n"),
          db.raw("'p-' || g as login"),
          db.raw("g % 3 = 0 as third"),
          db.raw("(g * 1.5)::float8 as half"),
          db.raw("(g::bigint * 1000000000) as big"),
        )
        .orderByRaw("g % 7, g desc");
    const rows = await manyRows<{ n: number; login: string; third: boolean; half: number; big: number }>(
      db,
      query(),
    );
    expect(rows).toHaveLength(1500);
    expect(rows.map((r) => r.n)).toEqual(((await query()) as { n: number }[]).map((r) => r.n));
    expect(rows.find((r) => r.n === 42)).toEqual({
      n: 42,
      login: "p-42",
      third: true,
      half: 63,
      big: backend === "pglite" ? 42_000_000_000 : "42000000000",
    });
    expect(await manyRows(db, query().where(db.raw("false")))).toEqual([]);
    // Rows that travel as arrays of the named columns come back as the same objects.
    const columns = ["big", "half", "login", "n", "third"];
    expect(await manyRows(db, query(), columns)).toEqual(rows);
    expect(await manyRows(db, query().where(db.raw("false")), columns)).toEqual([]);
  });
});
