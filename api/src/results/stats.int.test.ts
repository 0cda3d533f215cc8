import { randomUUID } from "node:crypto";
import { replay } from "@feedlab/projector";
import type { ExperimentStats } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";

describe.each(BACKENDS)("results per arm (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 2, status: "running", weights: [1] });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const times = (n: number, make: () => ReturnType<typeof wireEvent>) => Array.from({ length: n }, make);
  /** One participant's events: feed impressions and clicks, related impressions, plays, completions, likes. */
  async function participant(
    login: string,
    n: {
      impressions: number;
      clicks: number;
      related?: number;
      plays?: number;
      ended?: number;
      likes?: number;
    },
  ): Promise<Joined> {
    const p = await joinWithSession(app.client(), study.experiment.id, login);
    const r = await sendEvents(p, [
      ...times(n.impressions, () => wireEvent("IMPRESSION", { payload: { context: "feed" } })),
      ...times(n.clicks, () => wireEvent("FEED_CLICK")),
      ...times(n.related ?? 0, () => wireEvent("IMPRESSION", { payload: { context: "related" } })),
      ...times(n.plays ?? 0, () => wireEvent("VIDEO_PLAY")),
      ...times(n.ended ?? 0, () => wireEvent("VIDEO_ENDED")),
      ...times(n.likes ?? 0, () => wireEvent("LIKE")),
    ]);
    expect(r.body.rejected).toEqual([]);
    return p;
  }

  it("counts per arm and per recommender, with intervals that treat participants as clusters (checked by hand)", async () => {
    // ctr: 1/10, 3/10, 2/20 -> 6/40 = 0.15, Var = 3/2 · (0.25 + 2.25 + 1) / 40² -> 0.15 ± 0.11227.
    // completion_rate: 1/2, 2/2 -> 0.75, Var = 2 · (0.25 + 0.25) / 4² = 0.0625 -> 0.75 ± 0.48999, clipped at 1.
    // like_rate: 1/2, 0/2 -> 0.25 ± 0.48999, clipped at 0.
    await participant("p1", { impressions: 10, clicks: 1, related: 4, plays: 2, ended: 1, likes: 1 });
    await participant("p2", { impressions: 10, clicks: 3, plays: 2, ended: 2 });
    await participant("p3", { impressions: 20, clicks: 2 });
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);

    const r = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${study.experiment.id}/stats`);
    expect(r.status).toBe(200);
    const [group] = r.body.groups;
    expect(group).toMatchObject({
      group_id: study.groups[0]?.id,
      participants: 3,
      impressions: 44,
      feed_clicks: 6,
      plays: 4,
      completions: 3,
      likes: 1,
    });
    // The related impressions count for the arm, not for its click-through rate's numerator.
    expect(group?.ctr.value).toBeCloseTo(6 / 44, 10);
    const feed = r.body.recommenders.find((x) => x.surface === "feed");
    const watch = r.body.recommenders.find((x) => x.surface === "watch");
    expect(feed).toMatchObject({ key: "recency", impressions: 40, feed_clicks: 6, plays: 0 });
    expect(feed?.ctr.value).toBeCloseTo(0.15, 10);
    expect(feed?.ctr.low).toBeCloseTo(0.15 - 0.11227, 4);
    expect(feed?.ctr.high).toBeCloseTo(0.15 + 0.11227, 4);
    expect(feed?.completion_rate).toEqual({ value: null, low: null, high: null });
    expect(watch).toMatchObject({ key: "recency", impressions: 4, plays: 4, completions: 3, likes: 1 });
    expect(watch?.completion_rate.value).toBeCloseTo(0.75, 10);
    expect(watch?.completion_rate.low).toBeCloseTo(0.75 - 0.48999, 4);
    expect(watch?.completion_rate.high).toBe(1);
    expect(watch?.like_rate).toMatchObject({ low: 0 });
    expect(watch?.like_rate.value).toBeCloseTo(0.25, 10);
    expect(watch?.like_rate.high).toBeCloseTo(0.25 + 0.48999, 4);
    expect(watch?.ctr).toEqual({ value: 0, low: null, high: null });
  });

  it("credits feed clicks to each arm's feed recommender and the plays they led to to the shared watch recommender", async () => {
    // The console's per-recommender table shows the feed recommender's clicks beside its 0 plays.
    const two = await createStudy(admin, { videoCount: 2, status: "running", weights: [1, 1] });
    const popular = two.groups[1];
    expect(
      (
        await admin.patch(`/api/v1/admin/groups/${popular?.id}`, {
          algorithm_config: { feed: "popularity", watch: "recency" },
        })
      ).status,
    ).toBe(200);
    // Balanced assignment: q1 in the first arm (recency feed), q2 in the second (popularity feed).
    for (const [login, clicks] of [
      ["q1", 1],
      ["q2", 3],
    ] as const) {
      const p = await joinWithSession(app.client(), two.experiment.id, login);
      const r = await sendEvents(p, [
        ...times(4, () => wireEvent("IMPRESSION", { payload: { context: "feed" } })),
        ...times(clicks, () => wireEvent("FEED_CLICK")),
        ...times(clicks, () => wireEvent("VIDEO_PLAY")),
      ]);
      expect(r.body.rejected).toEqual([]);
    }
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);

    const r = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${two.experiment.id}/stats`);
    expect(
      r.body.recommenders.map(({ key, surface, feed_clicks, plays }) => ({
        key,
        surface,
        feed_clicks,
        plays,
      })),
    ).toEqual([
      { key: "popularity", surface: "feed", feed_clicks: 3, plays: 0 },
      { key: "recency", surface: "feed", feed_clicks: 1, plays: 0 },
      { key: "recency", surface: "watch", feed_clicks: 0, plays: 4 },
    ]);
  });

  it("rebuilds the same results in a replay, where batches mix every counted event", async () => {
    const before = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${study.experiment.id}/stats`);
    await replay({
      db: app.runtime.db,
      log: app.runtime.eventLog,
      logger: app.runtime.log,
      multiProcess: backend === "postgres",
      only: ["evaluation"],
    });
    const after = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${study.experiment.id}/stats`);
    expect({ ...after.body, generated_at: null }).toEqual({ ...before.body, generated_at: null });
    expect(after.body.groups[0]?.impressions).toBe(44);
  });

  it("leaves simulated participants out of every count, rate and participant figure unless include_simulated=true", async () => {
    const own = await createStudy(admin, { videoCount: 1, status: "running", weights: [1] });
    const real = await joinWithSession(app.client(), own.experiment.id, "real");
    const simulated = await joinSimulated(app, own.experiment.id, "sim-1");
    for (const [p, clicks] of [
      [real, 1],
      [simulated, 5],
    ] as const) {
      const r = await sendEvents(p, [
        ...times(10, () => wireEvent("IMPRESSION", { payload: { context: "feed" } })),
        ...times(clicks, () => wireEvent("FEED_CLICK")),
      ]);
      expect(r.body.rejected).toEqual([]);
    }
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    const stats = async (query: string) =>
      (await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${own.experiment.id}/stats${query}`)).body;

    for (const query of ["", "?include_simulated=false"]) {
      const body = await stats(query);
      expect(body.groups[0], query).toMatchObject({ participants: 1, impressions: 10, feed_clicks: 1 });
      expect(body.groups[0]?.ctr.value, query).toBeCloseTo(0.1, 10);
      expect(
        body.recommenders.find((x) => x.surface === "feed"),
        query,
      ).toMatchObject({ feed_clicks: 1 });
    }
    const all = await stats("?include_simulated=true");
    expect(all.groups[0]).toMatchObject({ participants: 2, impressions: 20, feed_clicks: 6 });
    expect(all.recommenders.find((x) => x.surface === "feed")).toMatchObject({ feed_clicks: 6 });
    expect(
      (await admin.get(`/api/v1/admin/experiments/${own.experiment.id}/stats?include_simulated=2`)).status,
    ).toBe(422);
  });

  it("answers 404 for an unknown experiment", async () => {
    expect((await admin.get(`/api/v1/admin/experiments/${randomUUID()}/stats`)).status).toBe(404);
  });
});
