import { randomUUID } from "node:crypto";
import type { FeedPage, Group, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import {
  deliverEvents,
  type Joined,
  joinWithSession,
  sendEvents,
  wireEvent,
} from "../../../test/harness/events.ts";

let serial = 0;

describe.each(BACKENDS)("built-in recommenders through the feed (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Waits until the projector has applied everything appended so far. */
  const settle = async () => {
    const head = await app.runtime.eventLog.position();
    expect(await app.runtime.progress.waitFor(head, 10_000)).toBe(true);
  };

  interface Study {
    experimentId: string;
    group: Group;
    videos: Video[];
    /** Video by its short name. */
    v: (name: string) => Video;
  }

  /** A running experiment with one group on the given algorithms and the given videos in the pool. */
  async function study(
    algorithms: { feed: string; watch: string },
    videos: { name: string; tags?: string[]; category?: string; title?: string; day?: number }[],
  ): Promise<Study> {
    const tag = `s${++serial}${backend}`;
    const exp = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: tag });
    const group = await admin.post<Group>(`/api/v1/admin/experiments/${exp.body.id}/groups`, {
      name: "Arm",
      algorithm_config: algorithms,
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    expect(group.status).toBe(201);
    const created = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: videos.map((x, i) => ({
        external_id: `${tag}-${x.name}`,
        url: `https://cdn.example.org/${tag}/${x.name}.mp4`,
        title: x.title ?? `Zq${x.name}${tag}`,
        ...(x.category ? { category: x.category } : {}),
        tags: x.tags ?? [],
        published_at: new Date(Date.UTC(2026, 0, 1 + (x.day ?? i))).toISOString(),
      })),
    });
    expect(created.status).toBe(201);
    await admin.put(`/api/v1/admin/experiments/${exp.body.id}/videos`, {
      video_ids: created.body.videos.map((v) => v.id),
    });
    await admin.patch(`/api/v1/admin/experiments/${exp.body.id}`, { status: "running" });
    const byName = new Map(videos.map((x, i) => [x.name, created.body.videos[i] as Video]));
    return {
      experimentId: exp.body.id,
      group: group.body,
      videos: created.body.videos,
      v: (name) => byName.get(name) as Video,
    };
  }

  const names = (s: Study, page: FeedPage) =>
    page.items.map((item) =>
      s.videos
        .find((v) => v.id === item.id)
        ?.external_id.split("-")
        .pop(),
    );

  async function feed(p: Joined, query = "", related?: string): Promise<FeedPage> {
    const path = related ? `/feed/${related}/related` : "/feed";
    const r = await p.client.get<FeedPage>(`${path}?session_id=${p.sessionId}${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  }

  /** Every page of a list, following next_offset. */
  async function allPages(p: Joined, limit: number, related?: string): Promise<string[]> {
    const ids: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: FeedPage = await feed(p, `&limit=${limit}&offset=${offset}`, related);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (page.has_more) expect(page.items).toHaveLength(limit);
      ids.push(...page.items.map((v) => v.id));
      offset = page.next_offset;
    }
    return ids;
  }

  const plain = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `v${i}` }));

  describe("random", () => {
    it("shows a session the same order on reload and pages through the pool without repeats", async () => {
      const s = await study({ feed: "random", watch: "random" }, plain(23));
      const p = await joinWithSession(app.client(), s.experimentId, "r1");
      const first = await allPages(p, 5);
      expect(new Set(first).size).toBe(23);
      expect(new Set(first)).toEqual(new Set(s.videos.map((v) => v.id)));
      expect(await allPages(p, 5)).toEqual(first);
      expect(await allPages(p, 7)).toEqual(first);
      const page = await feed(p, "&limit=5");
      expect(page).toMatchObject({ recommender: "random", has_more: true, next_offset: 5 });
    });

    it("gives a new session of the same participant another order", async () => {
      const s = await study({ feed: "random", watch: "random" }, plain(23));
      const p = await joinWithSession(app.client(), s.experimentId, "r2");
      const first = await allPages(p, 23);
      const sessionId = randomUUID();
      await p.client.post("/sessions", { session_id: sessionId });
      const second = await allPages({ ...p, sessionId }, 23);
      expect(second).not.toEqual(first);
      expect(new Set(second)).toEqual(new Set(first));
    });

    it("keeps each video's related order stable and leaves the current video out", async () => {
      const s = await study({ feed: "random", watch: "random" }, plain(10));
      const p = await joinWithSession(app.client(), s.experimentId, "r3");
      const current = s.v("v4").id;
      const related = await allPages(p, 3, current);
      expect(related).toHaveLength(9);
      expect(related).not.toContain(current);
      expect(await allPages(p, 3, current)).toEqual(related);
    });
  });

  describe("popularity", () => {
    it("orders by this experiment's VIDEO_PLAY counts (autoplay included), unplayed newest first", async () => {
      const s = await study({ feed: "popularity", watch: "popularity" }, plain(6));
      const a = await joinWithSession(app.client(), s.experimentId, "p1");
      const b = await joinWithSession(app.client(), s.experimentId, "p2");
      const play = (name: string, autoplay = false) =>
        wireEvent("VIDEO_PLAY", {
          video_id: s.v(name).external_id,
          payload: { currentTime: 0, duration: 30, playbackRate: 1, autoplay },
        });
      await deliverEvents(a, [play("v1"), play("v1"), play("v3", true)]);
      await deliverEvents(b, [play("v1", true), play("v3"), play("v0")]);
      await settle();
      const viewer = await joinWithSession(app.client(), s.experimentId, "p3");
      expect(names(s, await feed(viewer))).toEqual(["v1", "v3", "v0", "v5", "v4", "v2"]);
      expect(names(s, await feed(viewer, "&limit=2&offset=2"))).toEqual(["v0", "v5"]);
    });
  });

  describe("watched exclusion", () => {
    it("leaves out videos watched at least 1 s or ended at once with after, but not ones only played", async () => {
      const s = await study({ feed: "recency", watch: "recency" }, plain(5));
      const p = await joinWithSession(app.client(), s.experimentId, "w1");
      const sent = await sendEvents(p, [
        wireEvent("VIDEO_WATCHED_1S", { video_id: s.v("v4").external_id }),
        wireEvent("VIDEO_ENDED", { video_id: s.v("v2").external_id }),
        wireEvent("VIDEO_PLAY", { video_id: s.v("v3").external_id }),
      ]);
      const page = await feed(p, `&after=${sent.body.position}`);
      expect(names(s, page)).toEqual(["v3", "v1", "v0"]);
      const related = await feed(p, `&after=${sent.body.position}`, s.v("v3").id);
      expect(names(s, related)).toEqual(["v1", "v0"]);
    });

    it("leaves out each new watch at once with after, also when the participant's history was read before", async () => {
      const s = await study({ feed: "recency", watch: "recency" }, plain(5));
      const p = await joinWithSession(app.client(), s.experimentId, "w2");
      // Served first (the embedded database then keeps the history in memory), watched after.
      expect(names(s, await feed(p))).toEqual(["v4", "v3", "v2", "v1", "v0"]);
      for (const [watched, left] of [
        ["v4", ["v3", "v2", "v1", "v0"]],
        ["v1", ["v3", "v2", "v0"]],
      ] as const) {
        const sent = await sendEvents(p, [
          wireEvent("VIDEO_WATCHED_1S", { video_id: s.v(watched).external_id }),
        ]);
        expect(names(s, await feed(p, `&after=${sent.body.position}`))).toEqual(left);
        expect(names(s, await feed(p))).toEqual(left);
      }
      // Another participant's watch leaves this one's page as it was.
      const other = await joinWithSession(app.client(), s.experimentId, "w3");
      const sent = await sendEvents(other, [
        wireEvent("VIDEO_WATCHED_1S", { video_id: s.v("v3").external_id }),
      ]);
      expect(names(s, await feed(p, `&after=${sent.body.position}`))).toEqual(["v3", "v2", "v0"]);
    });
  });

  describe("similarity", () => {
    const catalog = [
      { name: "bread1", title: "Sourdough bread basics", tags: ["bread", "baking"], category: "Food" },
      { name: "trainA", title: "Night train to Vienna", tags: ["train", "travel"], category: "Travel" },
      { name: "bread2", title: "Rye bread at home", tags: ["bread", "baking"], category: "Food" },
      { name: "trainB", title: "Train journeys in Europe", tags: ["train", "travel"], category: "Travel" },
      { name: "soup", title: "Winter soup", tags: ["cooking"], category: "Food" },
      { name: "lonely", title: "Qwxv", tags: ["qwxv"] },
      { name: "other", title: "Zzyq", tags: ["zzyq"] },
    ];

    it("relates a video to the ones with similar metadata first, then the rest by popularity", async () => {
      const s = await study({ feed: "similarity", watch: "similarity" }, catalog);
      const p = await joinWithSession(app.client(), s.experimentId, "sim1");
      const related = names(s, await feed(p, "&limit=10", s.v("bread1").id));
      expect(related[0]).toBe("bread2");
      expect(related.indexOf("soup")).toBeLessThan(related.indexOf("trainA"));
      expect(related).toHaveLength(6);
      expect(related).not.toContain("bread1");
    });

    it("starts the feed from the participant's recent watches, and uses popularity without any", async () => {
      const s = await study({ feed: "similarity", watch: "similarity" }, catalog);
      const p = await joinWithSession(app.client(), s.experimentId, "sim2");
      // No watches: popularity, which without plays is newest first.
      expect(names(s, await feed(p, "&limit=3"))).toEqual(["other", "lonely", "soup"]);
      const sent = await sendEvents(p, [
        wireEvent("VIDEO_WATCHED_1S", { video_id: s.v("trainA").external_id }),
      ]);
      const page = names(s, await feed(p, `&limit=3&after=${sent.body.position}`));
      expect(page[0]).toBe("trainB");
      expect(page).not.toContain("trainA");
    });

    it("blends in co-views once they exist", async () => {
      const s = await study({ feed: "similarity", watch: "similarity" }, catalog);
      // Two participants watched both "lonely" and "other", which share no metadata.
      for (const login of ["co1", "co2"]) {
        const p = await joinWithSession(app.client(), s.experimentId, login);
        await deliverEvents(p, [
          wireEvent("VIDEO_WATCHED_1S", { video_id: s.v("lonely").external_id }),
          wireEvent("VIDEO_WATCHED_1S", { video_id: s.v("other").external_id }),
        ]);
      }
      await settle();
      const viewer = await joinWithSession(app.client(), s.experimentId, "co3");
      expect(names(s, await feed(viewer, "&limit=1", s.v("lonely").id))).toEqual(["other"]);
    });
  });

  describe("learned_model", () => {
    it("falls back to popularity then recency on the feed until the trainer stored a ranking, then follows it", async () => {
      const s = await study({ feed: "learned_model", watch: "learned_model" }, plain(6));
      const p = await joinWithSession(app.client(), s.experimentId, "lm1");
      await deliverEvents(p, [wireEvent("VIDEO_PLAY", { video_id: s.v("v1").external_id })]);
      await settle();
      expect(names(s, await feed(p))).toEqual(["v1", "v5", "v4", "v3", "v2", "v0"]);
      await app.runtime.db("recommendation_cache").insert(
        ["v2", "v0"].map((name, i) => ({
          experiment_id: s.experimentId,
          user_id: p.userId,
          video_id: s.v(name).external_id,
          rank: i + 1,
          score: 1 - i / 10,
        })),
      );
      // What the trainer does after writing its output: announce it, so cached rankings go.
      await app.runtime.changes.publish({ type: "model", experiment_id: s.experimentId });
      expect(names(s, await feed(p))).toEqual(["v2", "v0", "v1", "v5", "v4", "v3"]);
      expect(names(s, await feed(p, "&limit=2&offset=2"))).toEqual(["v1", "v5"]);
    });

    it("uses the trainer's item similarity on the watch page, then popularity", async () => {
      const s = await study({ feed: "learned_model", watch: "learned_model" }, plain(5));
      const p = await joinWithSession(app.client(), s.experimentId, "lm2");
      const current = s.v("v2");
      expect(names(s, await feed(p, "", current.id))).toEqual(["v4", "v3", "v1", "v0"]);
      await app.runtime.db("item_similarity").insert(
        [
          ["v0", 0.9],
          ["v1", 0.5],
        ].map(([name, score]) => ({
          experiment_id: s.experimentId,
          video_id: current.external_id,
          other_video_id: s.v(name as string).external_id,
          score,
        })),
      );
      await app.runtime.changes.publish({ type: "model", experiment_id: s.experimentId });
      expect(names(s, await feed(p, "", current.id))).toEqual(["v0", "v1", "v4", "v3"]);
    });
  });

  it.each(["random", "popularity", "recency", "similarity", "learned_model"])(
    "pages %s through the whole pool with limit plus one paging on both pages",
    async (key) => {
      const s = await study({ feed: key, watch: key }, plain(11));
      const p = await joinWithSession(app.client(), s.experimentId, `all-${key}`);
      const all = await allPages(p, 4);
      expect(new Set(all)).toEqual(new Set(s.videos.map((v) => v.id)));
      expect(all).toHaveLength(11);
      const current = s.v("v5").id;
      const related = await allPages(p, 3, current);
      expect(related).toHaveLength(10);
      expect(new Set(related).size).toBe(10);
      const last = await feed(p, "&limit=11");
      expect(last).toMatchObject({ has_more: false, next_offset: null, recommender: key });
      const exact = await feed(p, "&limit=10");
      expect(exact).toMatchObject({ has_more: true, next_offset: 10 });
    },
  );
});
