import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBatchApplier, PROJECTIONS } from "@feedlab/projector";
import { ALICE, BOB, EXPERIMENT } from "@feedlab/projector/logged-event.fixture.ts";
import { SIM, STORY, STORY_WITH_SIMULATED } from "@feedlab/projector/read-models/read-model.fixture.ts";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { type OpenDb, openDb } from "@feedlab/sql";
import { extractTrainingData, readFreshness } from "@feedlab/trainer";
import type { Knex } from "knex";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../../test/harness/database.ts";
import { migrate } from "../db/db.ts";

// Simulated participants (api.md, "Simulated participants") never reach what real participants are
// shown or what decides about them. Given the read models' story with a simulated participant's
// events among it, projected through the consumer's batch applier on a database the real migrations
// made, then what popularity, related lists, results over time and training read is what the real
// participants' events alone build.

/** The story's group, as `logged` stamps it. */
const GROUP = "00000000-0000-4000-8000-000000009001";
/** The story's videos, all in the experiment's pool. */
const VIDEOS = ["v-a", "v-B", "v-c", "v-d", "v-e"];

/** The experiment, its group, pool and participants, as the api would have made them. */
async function seedStudy(db: Knex): Promise<void> {
  await db("experiments").insert({ id: EXPERIMENT, name: "Dry run" });
  await db("groups").insert({
    id: GROUP,
    experiment_id: EXPERIMENT,
    name: "A",
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  });
  for (const [position, external_id] of VIDEOS.entries()) {
    const id = randomUUID();
    await db("videos").insert({
      id,
      external_id,
      url: "u",
      resolved_url: "u",
      type: "native",
      title: external_id,
    });
    await db("experiment_videos").insert({ experiment_id: EXPERIMENT, video_id: id, position });
  }
  for (const [id, login_id, simulated] of [
    [ALICE, "alice", false],
    [BOB, "bob", false],
    [SIM, "sim", true],
  ] as const)
    await db("users").insert({ id, experiment_id: EXPERIMENT, login_id, group_id: GROUP, simulated });
}

/** Empties every read model, then projects `events` through the batch applier in two batches. */
async function projectAfresh(db: Knex, events: readonly LoggedEvent[], consumer: string): Promise<void> {
  for (const table of PROJECTIONS.flatMap((p) => p.tables)) await db(table).delete();
  const apply = createBatchApplier({ db, logger: pino({ level: "silent" }), multiProcess: false, consumer });
  const records = events.map((e, offset) => ({ partition: 0, offset, value: encodeLoggedEvent(e) }));
  const half = Math.ceil(records.length / 2);
  for (const batch of [records.slice(0, half), records.slice(half)]) await apply(batch);
}

/** A table's rows as sorted JSON lines (times as ISO text, big integers as text). */
async function rowsOf(db: Knex, table: string): Promise<string[]> {
  const rows = (await db(table).select("*")) as Record<string, unknown>[];
  return rows
    .map((r) =>
      JSON.stringify(r, (_k, v) =>
        typeof v === "bigint" ? String(v) : v instanceof Date ? v.toISOString() : v,
      ),
    )
    .sort();
}

/** What real participants are shown and what training reads. */
async function realFacing(db: Knex) {
  return {
    viewCounts: await rowsOf(db, "video_view_counts"),
    coViews: await rowsOf(db, "co_views"),
    timeline: await rowsOf(db, "evaluation_timeline"),
    freshness: await readFreshness(db, EXPERIMENT),
    training: await extractTrainingData(db, EXPERIMENT),
  };
}

describe.each(["pglite", "postgres"] as const)("simulated participants' events (%s)", (backend) => {
  let store: OpenDb | undefined;
  let release = async () => {};
  beforeAll(async () => {
    if (backend === "postgres") {
      const database = await createTestDatabase();
      store = openDb({ databaseUrl: database.url, dataDir: "", poolMax: 2 });
      release = () => database.drop();
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), "feedlab-simulated-"));
      store = openDb({ databaseUrl: null, dataDir: dir });
      release = async () => rmSync(dir, { recursive: true, force: true });
    }
    await migrate(store.db);
    await seedStudy(store.db);
  }, 180_000);
  afterAll(async () => {
    await store?.close();
    await release();
  });
  const db = () => {
    if (!store) throw new Error("the test database did not open");
    return store.db;
  };

  it("leave view counts, co-views, the timeline and the training data as the real participants' events alone make them", async () => {
    // Given the story with a simulated participant's events, when projected:
    await projectAfresh(db(), STORY_WITH_SIMULATED, "with-simulated");
    const withSimulated = await realFacing(db());
    // Their own rows are kept: flagged interactions, and evaluation counts the api filters.
    const flagged = (await db()("interactions").where({ user_id: SIM }).select("simulated")) as {
      simulated: boolean;
    }[];
    expect(flagged.map((r) => r.simulated)).toEqual([true, true, true]);
    expect(await db()("evaluation_counts").where({ user_id: SIM }).first("user_id")).toBeDefined();

    // Then it equals the story without them, projected afresh:
    await projectAfresh(db(), STORY, "real-only");
    const realOnly = await realFacing(db());
    expect(withSimulated).toEqual(realOnly);
    expect(realOnly.viewCounts).toHaveLength(4);
    expect(realOnly.coViews.length).toBeGreaterThan(0);
    expect(realOnly.training.userIds).toEqual([ALICE, BOB].sort());
    expect(realOnly.freshness).toMatchObject({ events: 9, watermark: expect.stringContaining("12:03:20") });
  });
});
