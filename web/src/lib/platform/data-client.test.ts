import { describe, expect, it } from "vitest";
import type { ParticipantApi } from "../participant-api.ts";
import type { FeedPage, FeedQuery, Video } from "../types.ts";
import { DataClient } from "./data-client.ts";
import type { TrackingCore } from "./tracking/core.ts";

const video = (n: number) =>
  ({ id: `id-${n}`, external_id: `ext-${n}`, title: `V${n}`, propensity: 1 }) as Video & {
    propensity: number;
  };

function fakeApi(total = 30) {
  const calls: { path: string; query: FeedQuery }[] = [];
  const page = (path: string, q: FeedQuery): Promise<FeedPage> => {
    calls.push({ path, query: q });
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 20;
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) =>
      video(offset + i),
    );
    const more = offset + limit < total;
    return Promise.resolve({
      items,
      has_more: more,
      next_offset: more ? offset + limit : null,
      recommender: "recency",
    });
  };
  const api = {
    feed: (q: FeedQuery) => page("/feed", q),
    related: (id: string, q: FeedQuery) => page(`/feed/${id}/related`, q),
    getVideo: (id: string) => Promise.resolve(video(Number(id.split("-")[1]))),
  };
  return { api: api as unknown as ParticipantApi, calls };
}

const core = (position: string | null) => ({ settled: async () => position }) as unknown as TrackingCore;

describe("the data client", () => {
  it("passes the latest acknowledged log position as `after`, so the feed reads the session's own events", async () => {
    const { api, calls } = fakeApi();
    const data = new DataClient(api, "session-1", core("p1.0-42"));
    await data.feed(0, 20);
    await data.related("id-3", 20, 10);
    expect(calls).toEqual([
      { path: "/feed", query: { session_id: "session-1", limit: 20, offset: 0, after: "p1.0-42" } },
      {
        path: "/feed/id-3/related",
        query: { session_id: "session-1", limit: 10, offset: 20, after: "p1.0-42" },
      },
    ]);
  });

  it("serves the first page from the prefetch, cut to the size the layout asks for, then pages on from there", async () => {
    const { api, calls } = fakeApi();
    const data = new DataClient(api, "s", core(null));
    data.prefetchFeed(20);
    const first = await data.feed(0, 12);
    expect(first.items.map((v) => v.id)).toEqual(Array.from({ length: 12 }, (_, i) => `id-${i}`));
    expect(first).toMatchObject({ has_more: true, next_offset: 12 });
    await data.feed(12, 12);
    expect(calls.map((c) => [c.query.offset, c.query.limit])).toEqual([
      [0, 20],
      [12, 12],
    ]);
    // Taken once: the next first page is fetched again.
    await data.feed(0, 12);
    expect(calls).toHaveLength(3);
  });

  it("dates a page taken from a prefetch from the prefetch's request, where its latency_ms counts from", async () => {
    const { api } = fakeApi();
    const data = new DataClient(api, "s", core(null));
    const before = performance.now();
    data.prefetchFeed(20);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const calledAt = performance.now();
    const first = await data.feed(0, 12);
    const asked = data.askedAt(first);
    expect(asked).toBeGreaterThanOrEqual(before);
    expect(asked).toBeLessThan(calledAt);
    const next = await data.feed(12, 12);
    expect(data.askedAt(next)).toBeGreaterThanOrEqual(calledAt);
  });

  it("does not use a prefetch smaller than the page asked for", async () => {
    const { api, calls } = fakeApi();
    const data = new DataClient(api, "s", core(null));
    data.prefetchRelated("id-1", 5);
    await data.related("id-1", 0, 10);
    expect(calls.map((c) => c.query.limit)).toEqual([5, 10]);
  });

  it("keeps the videos of the pages it served, so the watch page has its video at once", async () => {
    const { api } = fakeApi();
    const data = new DataClient(api, "s", core(null));
    await data.feed(0, 5);
    await expect(data.video("id-4")).resolves.toMatchObject({ external_id: "ext-4" });
  });
});
