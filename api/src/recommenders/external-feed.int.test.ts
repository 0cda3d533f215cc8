import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import type { FeedPage, Group, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture, videoInput } from "../../../test/harness/fixtures.ts";
import {
  type Behaviour,
  closedPortUrl,
  type FakeRecommender,
  startFakeRecommender,
} from "../../../test/harness/recommender-server.ts";

/** Fails one host name the way a resolver does; anything else goes to the system (never used here). */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname.endsWith(".dns-fails.test")) {
    const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: "ENOTFOUND",
      hostname,
    });
    (callback as (e: Error) => void)(err);
    return;
  }
  dnsLookup(hostname, options, callback);
};

describe.each(BACKENDS)("external recommenders serving the feed (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let fake: FakeRecommender;
  let study: StudyFixture;
  let group: Group;
  let viewer: Joined;
  let outsider: Video;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp(backend, { lookup });
    admin = await app.admin();
    fake = await startFakeRecommender();
    study = await createStudy(admin, { weights: [1], videoCount: 8, status: "running" });
    group = study.groups[0] as Group;
    viewer = await joinWithSession(app.client(), study.experiment.id, "viewer");
    outsider = (await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", { videos: [videoInput(77)] }))
      .body.videos[0] as Video;
  });
  afterAll(async () => {
    await fake?.close();
    await app?.stop();
  });

  const id = (i: number) => (study.videos[i] as Video).id;

  /** Registers a recommender with this config and makes the group use it on both pages. */
  async function use(config: Record<string, unknown>, params?: Record<string, unknown>): Promise<string> {
    const key = `ext-${++n}`;
    const r = await admin.post("/api/v1/admin/recommenders", {
      key,
      kind: "external_http",
      label: key,
      supports_feed: true,
      supports_watch: true,
      config: { headers: { "X-Api-Key": "k-123" }, ...config },
    });
    expect(r.status).toBe(201);
    const g = await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: key, watch: key },
      ...(params ? { recommender_params: { [key]: params } } : {}),
    });
    expect(g.status).toBe(200);
    return key;
  }

  const answer = (behave: Behaviour) => fake.setBehaviour(behave);
  const getFeed = (query = "") => viewer.client.get<FeedPage>(`/feed?session_id=${viewer.sessionId}${query}`);

  it("serves the service's ids in its order, only pool members, asking for the page size plus one", async () => {
    const key = await use({ url: `${fake.url}/rec` });
    answer(() => ({ json: { video_ids: [id(5), "not-a-uuid", outsider.id, id(2), id(7), id(0)] } }));
    const before = fake.calls.length;
    const r = await getFeed("&limit=2");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ recommender: key, has_more: true, next_offset: 2 });
    expect(r.body.items.map((v) => v.id)).toEqual([id(5), id(2)]);
    const call = fake.calls[before];
    expect(call?.body).toMatchObject({
      user_id: viewer.userId,
      experiment_id: study.experiment.id,
      limit: 3,
      offset: 0,
      current_video_id: null,
      exclude_video_ids: [],
    });
    expect(call?.headers["x-api-key"]).toBe("k-123");
    const all = await getFeed("&limit=10");
    expect(all.body).toMatchObject({ has_more: false, next_offset: null });
    expect(all.body.items.map((v) => v.id)).toEqual([id(5), id(2), id(7), id(0)]);
  });

  it("sends the watched history as UUIDs and never shows a watched video, even when the service returns it", async () => {
    await use({ url: fake.url });
    answer(() => ({ json: { video_ids: [id(1), id(3), id(4)] } }));
    const sent = await sendEvents(viewer, [
      wireEvent("VIDEO_WATCHED_1S", { video_id: (study.videos[3] as Video).external_id }),
    ]);
    const before = fake.calls.length;
    const r = await getFeed(`&after=${sent.body.position}`);
    expect(r.body.items.map((v) => v.id)).toEqual([id(1), id(4)]);
    expect(fake.calls[before]?.body).toMatchObject({ exclude_video_ids: [id(3)] });
  });

  it("sets current_video_id on the related page and leaves the current video out", async () => {
    await use({ url: fake.url });
    answer(() => ({ json: { video_ids: [id(6), id(1), id(5)] } }));
    const before = fake.calls.length;
    const r = await viewer.client.get<FeedPage>(`/feed/${id(6)}/related?session_id=${viewer.sessionId}`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((v) => v.id)).toEqual([id(1), id(5)]);
    expect(fake.calls[before]?.body).toMatchObject({ current_video_id: id(6), limit: 21 });
  });

  it("exposes the group's per-recommender parameters as placeholders, so one service serves two variants", async () => {
    await use(
      {
        url: fake.url,
        method: "GET",
        body_template: { user: "{user_id}", variant: "{variant}", k: "{k}", seen: "{exclude_video_ids}" },
      },
      { variant: "treatment", k: 4 },
    );
    answer((call) => ({
      json: { video_ids: call.query.get("variant") === "treatment" ? [id(7)] : [id(0)] },
    }));
    const before = fake.calls.length;
    const r = await getFeed();
    expect(r.body.items.map((v) => v.id)).toEqual([id(7)]);
    const call = fake.calls[before];
    expect(call?.method).toBe("GET");
    expect(call?.query.get("k")).toBe("4");
    expect(call?.query.getAll("seen")).toEqual([id(3)]);
  });

  it.each([
    ["connection refused", "connection_refused", async () => ({ url: await closedPortUrl() })],
    ["a DNS error", "dns", async () => ({ url: "http://recommender.dns-fails.test/r" })],
    [
      "a timeout",
      "timeout",
      async () => {
        answer(() => ({ json: { video_ids: [id(1)] }, delayMs: 1500 }));
        return { url: fake.url, timeout_seconds: 0.2 };
      },
    ],
    [
      "an HTTP 500",
      "http_5xx",
      async () => {
        answer(() => ({ status: 500, json: {} }));
        return { url: fake.url };
      },
    ],
    [
      "invalid JSON",
      "invalid_json",
      async () => {
        answer(() => ({ raw: "{not json" }));
        return { url: fake.url };
      },
    ],
    [
      "a path to a non-list",
      "not_a_list",
      async () => {
        answer(() => ({ json: { data: { recommendations: "x" } } }));
        return { url: fake.url, video_id_path: "data.recommendations" };
      },
    ],
    [
      "all ids invalid",
      "all_invalid_ids",
      async () => {
        answer(() => ({ json: { video_ids: ["a", "b"] } }));
        return { url: fake.url };
      },
    ],
    [
      "all ids outside the pool",
      "all_outside_pool",
      async () => {
        answer(() => ({ json: { video_ids: [outsider.id] } }));
        return { url: fake.url };
      },
    ],
  ])("answers 200 with an empty page for %s, and counts the failure by kind", async (_name, kind, setup) => {
    const key = await use(await setup());
    const r = await getFeed();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [], has_more: false, next_offset: null, recommender: key });
    const related = await viewer.client.get<FeedPage>(
      `/feed/${id(0)}/related?session_id=${viewer.sessionId}`,
    );
    expect(related.status).toBe(200);
    expect(related.body.items).toEqual([]);
    const metrics = (await app.client().get("/metrics")).text;
    expect(metrics).toContain(
      `feedlab_recommender_external_failures_total{recommender="${key}",kind="${kind}"} 2`,
    );
    expect(metrics).toContain(`feedlab_recommender_external_calls_total{recommender="${key}"} 2`);
    expect(metrics).toMatch(
      new RegExp(`feedlab_recommender_external_call_duration_seconds_count\\{recommender="${key}"\\} 2`),
    );
  });

  it("uses a recommender on the worker that registered it at once, and a PATCH of its config on the next request", async () => {
    const key = await use({ url: `${fake.url}/first` });
    answer((call) => ({ json: { video_ids: call.url.startsWith("/second") ? [id(2)] : [id(1)] } }));
    expect((await getFeed()).body.items.map((v) => v.id)).toEqual([id(1)]);
    const p = await admin.patch(`/api/v1/admin/recommenders/${key}`, {
      config: { url: `${fake.url}/second` },
    });
    expect(p.status).toBe(200);
    expect((await getFeed()).body.items.map((v) => v.id)).toEqual([id(2)]);
  });
});
