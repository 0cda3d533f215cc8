import { randomUUID } from "node:crypto";
import type { FeedPage, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy, type StudyFixture, videoInput } from "../../../test/harness/fixtures.ts";

describe.each(BACKENDS)("sessions, feed and related (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  let participant: Client;
  let sessionId: string;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 25, status: "running" });
    participant = app.client();
    await participant.post("/api/v1/participants/join", {
      experiment_id: study.experiment.id,
      login_id: "viewer",
    });
    sessionId = randomUUID();
    expect((await participant.post("/sessions", { session_id: sessionId })).status).toBe(201);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 200 when the same participant registers a session again and 403 for another participant", async () => {
    expect((await participant.post("/sessions", { session_id: sessionId })).status).toBe(200);
    const other = app.client();
    await other.post("/api/v1/participants/join", { experiment_id: study.experiment.id, login_id: "other" });
    const r = await other.post("/sessions", { session_id: sessionId });
    expect(r.status).toBe(403);
    expect((await other.post(`/sessions/${sessionId}/end`)).status).toBe(403);
    expect((await app.client().post("/sessions", { session_id: randomUUID() })).status).toBe(401);
  });

  it("ends a session with POST /sessions/{id}/end and 404s an unknown one", async () => {
    const id = randomUUID();
    await participant.post("/sessions", { session_id: id });
    const r = await participant.post<{ ended_at: string | null }>(`/sessions/${id}/end`);
    expect(r.status).toBe(200);
    expect(r.body.ended_at).not.toBeNull();
    expect((await participant.post(`/sessions/${randomUUID()}/end`)).status).toBe(404);
  });

  it("pages the pool newest first with has_more and next_offset, 20 by default", async () => {
    const first = await participant.get<FeedPage>(`/feed?session_id=${sessionId}`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(20);
    expect(first.body).toMatchObject({ has_more: true, next_offset: 20, recommender: "recency" });
    const dates = first.body.items.map((v) => Date.parse(v.published_at ?? ""));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    const second = await participant.get<FeedPage>(`/feed?session_id=${sessionId}&limit=20&offset=20`);
    expect(second.body.items).toHaveLength(5);
    expect(second.body).toMatchObject({ has_more: false, next_offset: null });
    const seen = new Set([...first.body.items, ...second.body.items].map((v) => v.id));
    expect(seen).toEqual(new Set(study.videos.map((v) => v.id)));
  });

  it("gives each item the probability its recommender placed it with: 1 when deterministic, 1/N for random", async () => {
    const feed = await participant.get<FeedPage>(`/feed?session_id=${sessionId}&limit=5`);
    expect(feed.body.items.map((v) => v.propensity)).toEqual([1, 1, 1, 1, 1]);
    const own = await createStudy(admin, { videoCount: 8, status: "running", weights: [1] });
    const g = await admin.patch(`/api/v1/admin/groups/${own.groups[0]?.id}`, {
      algorithm_config: { feed: "random", watch: "random" },
    });
    expect(g.status).toBe(200);
    const viewer = app.client();
    await viewer.post("/api/v1/participants/join", { experiment_id: own.experiment.id, login_id: "v" });
    const session = randomUUID();
    await viewer.post("/sessions", { session_id: session });
    const random = await viewer.get<FeedPage>(`/feed?session_id=${session}&limit=3`);
    expect(random.body.items.map((v) => v.propensity)).toEqual([1 / 8, 1 / 8, 1 / 8]);
    // The watch page leaves the current video out: 7 left to place.
    const related = await viewer.get<FeedPage>(
      `/feed/${own.videos[0]?.id}/related?session_id=${session}&limit=2`,
    );
    expect(related.body.items.map((v) => v.propensity)).toEqual([1 / 7, 1 / 7]);
  });

  it("answers 422 when limit is over 100 or session_id is missing, and 404 for an unknown session", async () => {
    const over = await participant.get(`/feed?session_id=${sessionId}&limit=101`);
    expect(over.status).toBe(422);
    expect((over.body as { error: { details: { field: string } } }).error.details.field).toBe("limit");
    expect((await participant.get("/feed")).status).toBe(422);
    expect((await participant.get(`/feed?session_id=${randomUUID()}`)).status).toBe(404);
  });

  it("serves related videos without the current one, and only pool videos by id", async () => {
    const current = study.videos[3] as Video;
    const related = await participant.get<FeedPage>(
      `/feed/${current.id}/related?session_id=${sessionId}&limit=100`,
    );
    expect(related.body.items.map((v) => v.id)).not.toContain(current.id);
    expect(related.body.items).toHaveLength(24);
    expect((await participant.get<Video>(`/api/v1/videos/${current.id}`)).body.id).toBe(current.id);
    const { body } = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [videoInput(99)],
    });
    const outside = body.videos[0]?.id;
    const r = await participant.get(`/api/v1/videos/${outside}`);
    expect(r.status).toBe(404);
    expect(codeOf(r)).toBe("not_found");
    expect((await participant.get(`/feed/${outside}/related?session_id=${sessionId}`)).status).toBe(404);
  });
});
