import { EXAMPLE_PAYLOADS } from "@feedlab/schemas/events/examples.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStore } from "./storage.ts";
import { fakeServer, settle, trackerOn } from "./test-helpers.ts";

const P = EXAMPLE_PAYLOADS;

describe("the tracker's buffers flush exactly as the spec's batching table says", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 21, 9, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("flushes the normal buffer 5 s after its first event, not before", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    tracker.track("PAGE_LOAD", P.PAGE_LOAD);
    await vi.advanceTimersByTimeAsync(3000);
    tracker.track("WINDOW_FOCUS", {});
    await vi.advanceTimersByTimeAsync(1999);
    expect(server.requests).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.types()).toEqual([["PAGE_LOAD", "WINDOW_FOCUS"]]);
  });

  it("flushes the normal buffer at once when it reaches 20 events", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    for (let i = 0; i < 19; i++) tracker.track("WINDOW_BLUR", {});
    await settle();
    expect(server.requests).toHaveLength(0);
    tracker.track("WINDOW_BLUR", {});
    await settle();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.events).toHaveLength(20);
  });

  it("flushes the high-frequency buffer 2 s after its first event, or at 50 events", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    tracker.track("SCROLL", P.SCROLL);
    await vi.advanceTimersByTimeAsync(1999);
    expect(server.requests).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.types()).toEqual([["SCROLL"]]);

    for (let i = 0; i < 49; i++) tracker.track("MOUSE_MOVEMENT", P.MOUSE_MOVEMENT);
    await settle();
    expect(server.requests).toHaveLength(1);
    tracker.track("VIEWPORT_VISIBILITY", P.VIEWPORT_VISIBILITY);
    await settle();
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body.events).toHaveLength(50);
  });

  it.each(["VIDEO_ENDED", "LIKE", "DISLIKE", "SESSION_END", "PAGE_EXIT"] as const)(
    "sends %s the moment it is tracked, alone",
    async (type) => {
      const server = fakeServer();
      const { tracker } = trackerOn(server);
      tracker.track("PAGE_LOAD", P.PAGE_LOAD);
      tracker.track("SCROLL", P.SCROLL);
      tracker.track(type, P[type] as never, { video_id: "v-1" });
      await settle();
      expect(server.types()).toEqual([[type]]);
    },
  );

  it("never mixes high-frequency and normal events in one timed flush", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    tracker.track("PAGE_LOAD", P.PAGE_LOAD);
    tracker.track("MOUSE_MOVEMENT", P.MOUSE_MOVEMENT);
    tracker.track("VIDEO_PROGRESS", P.VIDEO_PROGRESS, { video_id: "v-1" });
    tracker.track("NAVIGATION", P.NAVIGATION);
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.types()).toEqual([
      ["MOUSE_MOVEMENT", "VIDEO_PROGRESS"],
      ["PAGE_LOAD", "NAVIGATION"],
    ]);
  });

  it("flush() (leaving a page inside the app) sends each buffer as its own batch", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    tracker.track("PAGE_LOAD", P.PAGE_LOAD);
    tracker.track("SCROLL", P.SCROLL);
    tracker.flush();
    await settle(30);
    expect(server.types()).toEqual([["PAGE_LOAD"], ["SCROLL"]]);
  });

  it("on unload puts every buffered event in one beacon, in sequence order", async () => {
    const server = fakeServer();
    const beacons: string[] = [];
    const beacon = (_url: string, blob: Blob) => {
      void blob.text().then((t) => beacons.push(t));
      expect(blob.type).toBe("text/plain;charset=utf-8");
      return true;
    };
    const { tracker, outbox } = trackerOn(server, { beacon });
    tracker.track("PAGE_LOAD", P.PAGE_LOAD);
    tracker.track("SCROLL", P.SCROLL);
    tracker.track("NAVIGATION", P.NAVIGATION);
    tracker.unload();
    await settle();
    expect(server.requests).toHaveLength(0);
    expect(beacons).toHaveLength(1);
    const body = JSON.parse(beacons[0] ?? "{}") as { events: { event_type: string; seq: number }[] };
    expect(body.events.map((e) => e.event_type)).toEqual(["PAGE_LOAD", "SCROLL", "NAVIGATION"]);
    expect(body.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    // Unconfirmed: the batch stays for the next page load to resend (the server stores an id once).
    expect(outbox.size).toBe(1);
  });

  it("stamps each event with a unique event_id, an ISO timestamp and the next seq, carrying seq across reloads", async () => {
    const server = fakeServer();
    const session = memoryStore();
    const first = trackerOn(server, { session });
    first.tracker.track("PAGE_LOAD", P.PAGE_LOAD);
    const e = first.tracker.track("FEED_CLICK", {}, { video_id: "v-1", position_in_feed: 2 });
    expect(e).toMatchObject({
      event_type: "FEED_CLICK",
      video_id: "v-1",
      position_in_feed: 2,
      timestamp: "2026-11-21T09:00:00.000Z",
      seq: 2,
      payload: {},
    });
    const again = trackerOn(server, { session });
    expect(again.tracker.track("PAGE_LOAD", P.PAGE_LOAD).seq).toBe(3);
  });

  it("leaves out promoted columns that are not finite numbers", () => {
    const { tracker } = trackerOn(fakeServer());
    const e = tracker.track("VIDEO_WATCHED_1S", P.VIDEO_WATCHED_1S, {
      video_id: "v",
      watch_ratio: Number.NaN,
      watch_duration: 1.2,
    });
    expect(e).not.toHaveProperty("watch_ratio");
    expect(e).toHaveProperty("watch_duration", 1.2);
  });
});
