import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { MessagePort } from "node:worker_threads";
import { type Db, type OpenDb, openDb, openLinkedDb, rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The embedded database's pool holds several sessions of one PGlite engine (@feedlab/sql's pglite-proxy.ts): each
// must behave as a connection of its own would on PostgreSQL.
describe("sessions of the embedded database", () => {
  let dir: string;
  let db: Db;
  let link: OpenDb["link"];
  let close: () => Promise<void>;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "feedlab-sessions-"));
    ({ db, link, close } = openDb({ databaseUrl: null, dataDir: dir }));
    await db.raw("create table t (n int primary key)");
  });
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => Number(rowsOf<{ n: string }>(await db.raw("select count(*) as n from t"))[0]?.n);

  it("holds other sessions' statements while a transaction is open, and lets them see it once committed", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let inside: Knex.Transaction | undefined;
    const trx = db.transaction(async (t) => {
      await t("t").insert({ n: 1 });
      inside = t;
      await held;
      await t("t").insert({ n: 2 });
    });
    while (!inside) await new Promise((r) => setTimeout(r, 5));
    const open = inside;
    const sent = new Promise<void>((resolve) => db.once("query", () => resolve()));
    let seen: number | undefined;
    const outside = count().then((n) => {
      seen = n;
    });
    await sent;
    await new Promise((r) => setImmediate(r));
    // The worker takes its messages in order: once the open transaction's next statement is answered,
    // the outside one (sent before it) has reached the worker and been held back.
    expect(rowsOf<{ one: number }>(await open.raw("select 1 as one"))[0]?.one).toBe(1);
    // Not run inside the open transaction (it would have seen 1 row), not run at all yet.
    expect(seen).toBeUndefined();
    release();
    await trx;
    await outside;
    expect(seen).toBe(2);
    await db("t").delete();
  });

  it("rolls back a failed transaction without touching the statements other sessions sent meanwhile", async () => {
    const failing = db
      .transaction(async (t) => {
        await t("t").insert({ n: 10 });
        await t("t").insert({ n: 10 });
      })
      .catch((err: { code?: string }) => err.code);
    const others = (async () => {
      await db("t").insert({ n: 20 });
      const first = await count();
      await db("t").insert({ n: 21 });
      return [first, await count()];
    })();
    expect(await failing).toBe("23505");
    expect(await others).toEqual([1, 2]);
    expect((await db("t").orderBy("n").pluck("n")) as number[]).toEqual([20, 21]);
  });

  it("runs many concurrent statements, all answered", async () => {
    const n = await Promise.all(Array.from({ length: 200 }, (_, i) => db.raw("select ?::int as i", [i])));
    expect(n.map((r) => rowsOf<{ i: number }>(r)[0]?.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it("serves another thread's sessions through a port, and rolls back what it left open when the port closes", async () => {
    await db("t").delete();
    const { link: other } = link();
    const linked = openLinkedDb(other);
    expect(rowsOf<{ i: number }>(await linked.raw("select 7 as i"))[0]?.i).toBe(7);
    let inside = false;
    // A transaction the other thread never ends (an export whose thread was stopped).
    void linked
      .transaction(async (t) => {
        await t("t").insert({ n: 30 });
        inside = true;
        await new Promise(() => {});
      })
      .catch(() => {});
    while (!inside) await new Promise((r) => setTimeout(r, 5));
    (other as { pglite: MessagePort }).pglite.close();
    expect(await count()).toBe(0);
    await db("t").insert({ n: 31 });
    expect((await db("t").pluck("n")) as number[]).toEqual([31]);
    await db("t").delete();
  });
});
