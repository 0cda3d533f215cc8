import type { FeedPage, Group, RecommenderHealth, RecommenderTestResult, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { type FakeRecommender, startFakeRecommender } from "../../../test/harness/recommender-server.ts";

describe.each(BACKENDS)("recommender health and the Test call (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let fake: FakeRecommender;
  let study: StudyFixture;
  let viewer: Joined;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    fake = await startFakeRecommender();
    study = await createStudy(admin, { weights: [1], videoCount: 6, status: "running" });
    viewer = await joinWithSession(app.client(), study.experiment.id, "viewer");
  });
  afterAll(async () => {
    await fake?.close();
    await app?.stop();
  });

  const id = (i: number) => (study.videos[i] as Video).id;
  const getFeed = () => viewer.client.get<FeedPage>(`/feed?session_id=${viewer.sessionId}`);

  async function register(): Promise<string> {
    const key = `svc-${++n}`;
    const r = await admin.post("/api/v1/admin/recommenders", {
      key,
      kind: "external_http",
      label: key,
      config: { url: `${fake.url}/rec`, headers: { Authorization: "Bearer s3cret" } },
    });
    expect(r.status).toBe(201);
    const g = await admin.patch(`/api/v1/admin/groups/${(study.groups[0] as Group).id}`, {
      algorithm_config: { feed: key, watch: "recency" },
    });
    expect(g.status).toBe(200);
    return key;
  }

  it("counts the pages a recommender served, its failures by kind, empty results and latency", async () => {
    const key = await register();
    fake.setBehaviour(() => ({ json: { video_ids: [id(1), id(2)] } }));
    for (let i = 0; i < 3; i++) expect((await getFeed()).body.items).toHaveLength(2);
    fake.setBehaviour(() => ({ status: 503, raw: "down" }));
    expect((await getFeed()).body.items).toEqual([]);
    fake.setBehaviour(() => ({ raw: "not json" }));
    expect((await getFeed()).body.items).toEqual([]);
    fake.setBehaviour(() => ({ json: { video_ids: [crypto.randomUUID()] } }));
    expect((await getFeed()).body.items).toEqual([]);

    const r = await admin.get<RecommenderHealth>(`/api/v1/admin/recommenders/${key}/health`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      key,
      calls: 6,
      empty_results: 3,
      failures: {
        refused: 0,
        timeout: 0,
        http_5xx: 1,
        invalid_json: 1,
        not_a_list: 0,
        no_valid_ids: 0,
        outside_pool: 1,
        other: 0,
      },
    });
    expect(r.body.latency_ms.p50).toBeGreaterThan(0);
    expect(r.body.latency_ms.p95).toBeGreaterThanOrEqual(r.body.latency_ms.p50 as number);
    expect(r.body.last_failure?.message).toContain("outside_pool");
    expect(JSON.stringify(r.body)).not.toContain("s3cret");
    // Narrowed to another experiment: nothing.
    const other = await createStudy(admin, { weights: [1], videoCount: 1 });
    const none = await admin.get<RecommenderHealth>(
      `/api/v1/admin/recommenders/${key}/health?experiment_id=${other.experiment.id}`,
    );
    expect(none.body.calls).toBe(0);
    expect(none.body.latency_ms).toEqual({ p50: null, p95: null });
  });

  it("tries a recommender with one real call and says how many ids were kept and why others were dropped", async () => {
    const key = await register();
    fake.setBehaviour(() => ({ json: { video_ids: [id(3), "nope", crypto.randomUUID(), id(4)] } }));
    const before = fake.calls.length;
    const r = await admin.post<RecommenderTestResult>(`/api/v1/admin/recommenders/${key}/test`, {
      experiment_id: study.experiment.id,
      surface: "feed",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      status: 200,
      returned: 4,
      kept: 2,
      dropped: { invalid: 1, outside_pool: 1 },
      failure: null,
    });
    expect(fake.calls.length).toBe(before + 1);
    expect(fake.calls.at(-1)?.body).toMatchObject({ experiment_id: study.experiment.id, limit: 21 });
    // A test is not counted in the health.
    const health = await admin.get<RecommenderHealth>(`/api/v1/admin/recommenders/${key}/health`);
    expect(health.body.calls).toBe(0);
  });

  it("names the failure of a test call, and tries an unsaved config before it is registered", async () => {
    fake.setBehaviour(() => ({ status: 500, raw: "boom" }));
    const r = await admin.post<RecommenderTestResult>("/api/v1/admin/recommenders/not-yet/test", {
      experiment_id: study.experiment.id,
      surface: "watch",
      config: { url: `${fake.url}/rec` },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, status: 500, failure: "http_5xx", kept: 0 });
    expect(fake.calls.at(-1)?.body).toMatchObject({ current_video_id: id(0) });
    expect((await admin.get("/api/v1/admin/recommenders/not-yet")).status).toBe(404);
  });

  it("tests a built-in, and refuses an unknown key, a bad config and an unknown experiment", async () => {
    const builtin = await admin.post<RecommenderTestResult>("/api/v1/admin/recommenders/recency/test", {
      experiment_id: study.experiment.id,
      surface: "feed",
    });
    expect(builtin.body).toMatchObject({ ok: true, returned: 6, kept: 6, failure: null });
    const body = { experiment_id: study.experiment.id, surface: "feed" };
    expect((await admin.post("/api/v1/admin/recommenders/missing/test", body)).status).toBe(404);
    const bad = await admin.post("/api/v1/admin/recommenders/x-new/test", {
      ...body,
      config: { url: "ftp://x" },
    });
    expect(bad.status).toBe(422);
    const unknown = await admin.post("/api/v1/admin/recommenders/recency/test", {
      experiment_id: crypto.randomUUID(),
      surface: "feed",
    });
    expect(unknown.status).toBe(422);
    expect((await admin.get("/api/v1/admin/recommenders/missing/health")).status).toBe(404);
  });
});
