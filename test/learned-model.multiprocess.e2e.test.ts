import type { ModelRun, Video } from "@feedlab/schemas";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./harness/app.ts";
import { createTestDatabase, type TestDatabase } from "./harness/database.ts";
import { joinWithSession, sendEvents, wireEvent } from "./harness/events.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { adminClient, type FeedlabProcess, startRole } from "./harness/processes.ts";

/** Polls until `probe` answers a value, for at most `ms`. */
async function until<T>(ms: number, probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the learned model in the scale-out deployment (API, projector and two trainers on PostgreSQL)", () => {
  let database: TestDatabase;
  let sql: pg.Client;
  const processes: FeedlabProcess[] = [];
  let trainers: FeedlabProcess[];
  let admin: Client;
  let study: StudyFixture;
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url };
    const api = await startRole("api", env);
    processes.push(api);
    processes.push(await startRole("projector", env));
    trainers = [await startRole("trainer", env), await startRole("trainer", env)];
    processes.push(...trainers);
    url = api.url as string;
    admin = await adminClient(url);
    study = await createStudy(admin, { videoCount: 8, status: "running", weights: [1] });
    const group = study.groups[0];
    await admin.patch(`/api/v1/admin/groups/${group?.id}`, {
      algorithm_config: { feed: "learned_model", watch: "learned_model" },
    });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    for (const p of processes) await p.stop().catch(() => {});
    await database?.drop();
  });

  const ext = (i: number) => (study.videos[i] as Video).external_id;

  /** Participants who watch the even or the odd videos; answers once the projector stored them. */
  async function watchVideos(from: number, count: number): Promise<number> {
    for (let p = from; p < from + count; p++) {
      const viewer = await joinWithSession(new Client(url), study.experiment.id, `viewer-${p}`);
      const events = [0, 2, 4, 6].map((i) => wireEvent("VIDEO_WATCHED_1S", { video_id: ext(i + (p % 2)) }));
      expect((await sendEvents(viewer, events)).status).toBe(202);
    }
    const expected = (from + count) * 4;
    return until(20_000, async () => {
      const { rows } = await sql.query(
        "select count(*)::int as n from interactions where experiment_id = $1",
        [study.experiment.id],
      );
      return (rows[0]?.n ?? 0) >= expected ? expected : null;
    });
  }

  async function trainAndWait(): Promise<ModelRun> {
    const r = await admin.post<{ run_id: string }>(
      `/api/v1/admin/experiments/${study.experiment.id}/models/train`,
    );
    expect(r.status).toBe(202);
    return until(30_000, async () => {
      const runs = await admin.get<ModelRun[]>(`/api/v1/admin/experiments/${study.experiment.id}/models`);
      const run = runs.body.find((x) => x.id === r.body.run_id);
      return run && run.status !== "queued" && run.status !== "running" ? run : null;
    });
  }

  it("trains a run the API queued in the leading trainer process, once", async () => {
    const interactions = await watchVideos(0, 6);
    const run = await trainAndWait();
    expect(run).toMatchObject({ status: "succeeded", trigger: "manual", interactions, users: 6, videos: 8 });
    const { rows } = await sql.query(
      "select count(*)::int as n, count(distinct model_run_id)::int as runs from recommendation_cache where experiment_id = $1",
      [study.experiment.id],
    );
    expect(rows[0]).toMatchObject({ runs: 1 });
    expect(rows[0]?.n).toBeGreaterThan(0);
  });

  it("keeps training when one trainer stops: the other takes over the lead", async () => {
    await trainers[0]?.stop();
    const interactions = await watchVideos(6, 2);
    const run = await trainAndWait();
    expect(run).toMatchObject({ status: "succeeded", interactions, users: 8 });
  });
});
