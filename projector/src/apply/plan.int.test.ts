import knexPkg, { type Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/harness/database.ts";
import type { RowOp } from "../ops.ts";
import { applyOps } from "./plan.ts";

const TABLES = ["counts_a", "counts_b", "counts_c"] as const;

const add = (table: string, key: string): RowOp => ({
  kind: "accumulate",
  table,
  key: { k: key },
  add: { n: 1 },
});

describe("applying row operations on PostgreSQL", () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = knexPkg.knex({ client: "pg", connection: database.url, pool: { min: 0, max: 4 } });
    for (const t of TABLES) await db.raw(`create table ${t} (k text primary key, n int not null)`);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it("lets two concurrent batches that touch the same rows in opposite orders both commit (no deadlock)", async () => {
    // A third transaction holds the row of counts_c, so that each batch takes its first row and
    // then waits: batch one holds counts_a's row, batch two (operations in the opposite order)
    // counts_b's. Taken in the operations' order, the rows would then deadlock; taken in one order
    // for every batch (tables by name, rows by key), the second batch waits for the first.
    await db("counts_c").insert({ k: "z", n: 0 });
    const holder = await db.transaction();
    await holder.raw("select * from counts_c where k = 'z' for update");
    const one = db.transaction((trx) =>
      applyOps(trx, [add("counts_a", "x"), add("counts_c", "z"), add("counts_b", "y")]),
    );
    const two = db.transaction((trx) =>
      applyOps(trx, [add("counts_b", "y"), add("counts_c", "z"), add("counts_a", "x")]),
    );
    const outcomes = Promise.allSettled([one, two]);
    // Both batches are waiting on the holder (or on each other's first row) before it lets go.
    await waitForLockWaits(db, 2);
    await holder.commit();
    const [a, b] = await outcomes;
    expect(a.status, String((a as PromiseRejectedResult).reason)).toBe("fulfilled");
    expect(b.status, String((b as PromiseRejectedResult).reason)).toBe("fulfilled");
    for (const [table, k, n] of [
      ["counts_a", "x", 2],
      ["counts_b", "y", 2],
      ["counts_c", "z", 2],
    ] as const)
      expect(await db(table).where({ k }).first("n")).toEqual({ n });
  });
});

/** Waits until `count` sessions of this database wait for a lock. */
async function waitForLockWaits(db: Knex, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = (await db.raw(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    )) as { rows: { n: number }[] };
    if ((rows[0]?.n ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} sessions waited for a lock`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
