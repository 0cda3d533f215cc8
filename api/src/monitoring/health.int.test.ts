import type { FeedPage, Group, RecommenderHealth, RecommenderTestResult, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import {
  type FakeRecommender,
  recordConnections,
  startFakeRecommender,
  testLookup,
} from "../../../test/harness/recommender-server.ts";

describe.each(BACKENDS)("recommender health and the Test call (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let fake: FakeRecommender;
  let study: StudyFixture;
  let viewer: Joined;
  let n = 0;
  // Every connection the server's recommender calls try to open: none may go past loopback.
  const connections = recordConnections();

  beforeAll(async () => {
    app = await startTestApp(backend, { lookup: testLookup, connector: connections.connector });
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

  async function register(url = `${fake.url}/rec`): Promise<string> {
    const key = `svc-${++n}`;
    const r = await admin.post("/api/v1/admin/recommenders", {
      key,
      kind: "external_http",
      label: key,
      config: { url, headers: { Authorization: "Bearer s3cret" } },
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
        blocked_address: 0,
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

  it("fails a call whose host name resolves to a cloud metadata address as blocked_address, without opening a connection", async () => {
    // Registering a name is accepted: what it resolves to is checked at each call.
    const key = await register("http://instance.metadata.test/latest/meta-data/");
    const before = connections.attempts.length;
    expect((await getFeed()).body.items).toEqual([]);
    const tried = await admin.post<RecommenderTestResult>(`/api/v1/admin/recommenders/${key}/test`, {
      experiment_id: study.experiment.id,
      surface: "feed",
    });
    expect(tried.status).toBe(200);
    expect(tried.body).toMatchObject({ ok: false, status: null, failure: "blocked_address", response: null });
    expect(tried.body.message).toContain("169.254.169.254");
    // A name with one loopback and one metadata address is refused too: every address is checked.
    const mixed = await admin.post<RecommenderTestResult>("/api/v1/admin/recommenders/unsaved/test", {
      experiment_id: study.experiment.id,
      surface: "feed",
      config: { url: "http://both.mixed.test/rec" },
    });
    expect(mixed.body).toMatchObject({ ok: false, failure: "blocked_address" });
    expect(connections.attempts.slice(before)).toEqual([]);

    const health = await admin.get<RecommenderHealth>(`/api/v1/admin/recommenders/${key}/health`);
    expect(health.body).toMatchObject({ calls: 1, empty_results: 1 });
    expect(health.body.failures).toMatchObject({ blocked_address: 1, refused: 0, other: 0 });
  });

  it("quotes at most 4,096 bytes of a test call's answer, and a short answer whole", async () => {
    const key = await register();
    const before = connections.attempts.length;
    fake.setBehaviour(() => ({ json: { video_ids: [id(1)], internal: "é".repeat(10_000) } }));
    const long = await admin.post<RecommenderTestResult>(`/api/v1/admin/recommenders/${key}/test`, {
      experiment_id: study.experiment.id,
      surface: "feed",
    });
    expect(long.body).toMatchObject({ ok: true, kept: 1 });
    expect(typeof long.body.response).toBe("string");
    const quote = String(long.body.response);
    expect(Buffer.byteLength(quote, "utf8")).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(quote, "utf8")).toBeGreaterThan(4090);
    expect(quote).not.toContain("\uFFFD");
    fake.setBehaviour(() => ({ json: { video_ids: [id(2)] } }));
    const short = await admin.post<RecommenderTestResult>(`/api/v1/admin/recommenders/${key}/test`, {
      experiment_id: study.experiment.id,
      surface: "feed",
    });
    expect(short.body.response).toEqual({ video_ids: [id(2)] });
    // The fake recommender is on loopback: that is where the calls went, and nowhere else.
    expect(connections.attempts.slice(before).every((a) => a.hostname === "127.0.0.1")).toBe(true);
  });
});
