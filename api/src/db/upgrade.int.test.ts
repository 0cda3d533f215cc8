import { readFileSync } from "node:fs";
import path from "node:path";
import { PROJECTIONS, replay } from "@feedlab/projector";
import { type Db, openDb, rowsOf } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  createTestStorage,
  startTestAppOn,
  type TestApp,
  type TestStorage,
} from "../../../test/harness/app.ts";
import { sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { sqlStatements } from "../../../test/harness/sql-script.ts";
import { MIGRATIONS } from "./migrations/index.ts";

/** Made by release 0.1.0 (see the file's header): its tables, migrations and a study's data. */
const FIXTURE = path.join(import.meta.dirname, "upgrade", "release-0.1.0.sql");

/**
 * Every table's rows, each as sorted-key JSON, sorted: equal snapshots hold the same data. `columnsOf`
 * keeps only the columns another snapshot's rows have (columns added since are left out).
 */
async function snapshot(
  db: Db,
  tables?: readonly string[],
  columnsOf?: Record<string, string[]>,
): Promise<Record<string, string[]>> {
  const names =
    tables ??
    rowsOf<{ tablename: string }>(
      await db.raw("select tablename from pg_tables where schemaname = 'public' order by tablename"),
    )
      .map((r) => r.tablename)
      .filter((t) => !t.startsWith("knex_migrations"));
  const out: Record<string, string[]> = {};
  for (const table of names) {
    const rows = (await db(table).select("*")) as Record<string, unknown>[];
    const keep = (r: Record<string, unknown>) => columnsOf?.[table] ?? Object.keys(r);
    out[table] = rows.map((r) => JSON.stringify(r, [...keep(r)].sort())).sort();
  }
  return out;
}

describe.each(BACKENDS)("upgrade from release 0.1.0 (%s)", (backend) => {
  let storage: TestStorage;
  let app: TestApp;
  let before: Record<string, string[]>;

  beforeAll(async () => {
    storage = await createTestStorage(backend);
    const { db, close } = openDb({
      databaseUrl: storage.env.DATABASE_URL ?? null,
      dataDir: storage.env.FEEDLAB_DATA_DIR ?? "",
    });
    try {
      for (const statement of sqlStatements(readFileSync(FIXTURE, "utf8"))) await db.raw(statement);
      before = await snapshot(db);
    } finally {
      await close();
    }
    app = await startTestAppOn(storage, backend);
  });
  afterAll(async () => {
    if (app) await app.stop();
    else await storage?.cleanup();
  });
  const db = () => app.runtime.db;

  it("records the owners' migrations for the tables 0.1.0 made, and applies nothing twice", async () => {
    const names = ((await db()("knex_migrations").select("name")) as { name: string }[]).map((r) => r.name);
    expect([...names].sort()).toEqual(MIGRATIONS.map((m) => m.name).sort());
    expect(names).not.toContain("002-events");
    expect(names).not.toContain("004-model-runs");
  });

  it("keeps every row of every table as 0.1.0 left it", async () => {
    expect(Object.keys(before)).toContain("event_log");
    expect(before.events?.length).toBeGreaterThan(30);
    // Tables later releases add are new and empty; every table 0.1.0 had holds what it held, in the
    // columns it had (events gained ui_feed and ui_watch, null on old events: checked below).
    const columns = Object.fromEntries(
      Object.entries(before).map(([table, rows]) => [table, Object.keys(JSON.parse(rows[0] ?? "{}"))]),
    );
    expect(await snapshot(db(), Object.keys(before), columns)).toEqual(before);
    const stamped = await db()("events").whereNotNull("ui_feed").orWhereNotNull("ui_watch").first("event_id");
    expect(stamped).toBeUndefined();
  });

  it("serves the old study: sign-in as an owner, its events export, and a returning participant's group", async () => {
    const admin = await app.admin();
    // The account 0.1.0 made, before roles: an owner, so nothing changes for it.
    expect((await admin.get("/api/v1/auth/me")).body).toMatchObject({ role: "owner" });
    const experiments = await admin.get<{ id: string; name: string }[]>("/api/v1/admin/experiments");
    const study = experiments.body.find((e) => e.name === "Upgrade study");
    expect(study).toBeDefined();
    const id = study?.id ?? "";
    const exported = await admin.get(`/api/v1/admin/experiments/${id}/events?format=ndjson`);
    expect(exported.status).toBe(200);
    expect(exported.text.trim().split("\n")).toHaveLength(before.events?.length ?? -1);

    const old = (await db()("users").where({ login_id: "upgrade-0" }).first("id", "group_id")) as {
      id: string;
      group_id: string;
    };
    const client = app.client();
    const join = await client.post<{ user_id: string; group_id: string }>("/api/v1/participants/join", {
      experiment_id: id,
      login_id: "upgrade-0",
    });
    expect(join.body).toMatchObject({ user_id: old.id, group_id: old.group_id });
  });

  it("projects new events on top of the old read models, and a replay rebuilds them exactly", async () => {
    const user = (await db()("users").where({ login_id: "upgrade-1" }).first("id")) as { id: string };
    const session = (await db()("sessions").where({ user_id: user.id }).first("id")) as { id: string };
    const watched = (await db()("watched_videos").where({ user_id: user.id }).first("video_id")) as {
      video_id: string;
    };
    const countOf = async () =>
      Number(
        (
          (await db()("video_view_counts").where({ video_id: watched.video_id }).first("plays")) as {
            plays: string;
          }
        ).plays,
      );
    const plays = await countOf();
    // The read model this release added counts the old events too: rebuilt from the log at start.
    const counted = (await db()("evaluation_counts").sum({ n: "plays" })) as { n: string | number }[];
    expect(Number(counted[0]?.n)).toBeGreaterThan(0);
    expect(await db()("projector_rebuilds").select("projection")).toEqual([]);
    const client = app.client();
    const experiment = (await db()("users").where({ id: user.id }).first("experiment_id")) as {
      experiment_id: string;
    };
    await client.post("/api/v1/participants/join", {
      experiment_id: experiment.experiment_id,
      login_id: "upgrade-1",
    });
    const sent = await sendEvents({ client, userId: user.id, sessionId: session.id }, [
      wireEvent("VIDEO_PLAY", { video_id: watched.video_id }),
    ]);
    expect(sent.status).toBe(202);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    expect(await countOf()).toBe(plays + 1);

    const tables = PROJECTIONS.flatMap((p) => p.tables);
    const live = await snapshot(db(), tables);
    await replay({
      db: db(),
      log: app.runtime.eventLog,
      logger: app.runtime.log,
      multiProcess: backend === "postgres",
    });
    expect(await snapshot(db(), tables)).toEqual(live);
  });
});
