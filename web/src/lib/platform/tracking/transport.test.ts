import { EXAMPLE_PAYLOADS } from "@feedlab/schemas/events/examples.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ORPHAN_AFTER_MS, OUTBOX_PREFIX } from "./outbox.ts";
import { memoryStore } from "./storage.ts";
import { fakeServer, settle, trackerOn } from "./test-helpers.ts";

const P = EXAMPLE_PAYLOADS;

describe("the transport delivers every batch at least once and the server stores it once", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 21, 9, 0, 0) });
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("retries a batch after a network error with doubling backoff and the same event ids", async () => {
    const server = fakeServer(["network-error", "network-error", 202]);
    const { tracker, transport, outbox } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    await settle();
    expect(server.requests).toHaveLength(1);
    // Backoff 1 s * jitter 0.75, then 2 s * 0.75.
    await vi.advanceTimersByTimeAsync(749);
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1499);
    expect(server.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.requests).toHaveLength(3);
    const ids = server.requests.map((r) => r.body.events[0]?.event_id);
    expect(new Set(ids).size).toBe(1);
    expect(outbox.size).toBe(0);
    expect(transport.stats).toMatchObject({ sent: 1, retries: 2, droppedBatches: 0 });
  });

  it.each([500, 502, 503, 408, 429])("retries on %i", async (status) => {
    const server = fakeServer([status, 202]);
    const { tracker, outbox } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.requests).toHaveLength(2);
    expect(outbox.size).toBe(0);
  });

  it("honours Retry-After on 429 and 503", async () => {
    const server = fakeServer([{ status: 503, headers: { "retry-after": "7" } }, 202]);
    const { tracker } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    await vi.advanceTimersByTimeAsync(6999);
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.requests).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 413, 422])(
    "drops and counts a batch the server refuses with %i",
    async (status) => {
      const server = fakeServer([status]);
      const { tracker, transport, outbox } = trackerOn(server);
      tracker.track("LIKE", P.LIKE);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(server.requests).toHaveLength(1);
      expect(outbox.size).toBe(0);
      expect(transport.stats.droppedBatches).toBe(1);
    },
  );

  it("counts events rejected inside an acknowledged batch and keeps the position of the latest one", async () => {
    const server = fakeServer([
      {
        status: 202,
        body: {
          accepted: 1,
          rejected: [{ index: 1, code: "missing_field", message: "x" }],
          position: "p1.0-5",
        },
      },
      { status: 202, body: { accepted: 0, rejected: [], position: "p1." } },
    ]);
    const { tracker, transport } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    await settle();
    tracker.track("DISLIKE", P.DISLIKE);
    await settle();
    expect(transport.stats.rejectedEvents).toBe(1);
    expect(transport.position).toBe("p1.0-5");
  });

  it("sends batches one at a time, in the order they were formed", async () => {
    const server = fakeServer();
    const { tracker } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    tracker.track("DISLIKE", P.DISLIKE);
    tracker.track("PAGE_EXIT", P.PAGE_EXIT);
    await settle(40);
    expect(server.types()).toEqual([["LIKE"], ["DISLIKE"], ["PAGE_EXIT"]]);
  });

  it("keeps unsent batches in localStorage, so a reload sends them", async () => {
    const local = memoryStore();
    const offline = fakeServer(["network-error", "network-error", "network-error"]);
    const before = trackerOn(offline, { local });
    before.tracker.track("LIKE", P.LIKE);
    before.tracker.track("SCROLL", P.SCROLL);
    await vi.advanceTimersByTimeAsync(2000);
    expect(local.getItem(OUTBOX_PREFIX + before.sessionId)).toContain("LIKE");
    before.transport.dispose();

    // The reload: same session, same storage, the network is back.
    const online = fakeServer();
    const after = trackerOn(online, { local });
    after.transport.start();
    await settle(40);
    expect(online.types()).toEqual([["LIKE"], ["SCROLL"]]);
    expect(local.getItem(OUTBOX_PREFIX + before.sessionId)).toBeNull();
  });

  it("loses nothing across 10 s offline: everything formed meanwhile is sent once the network is back", async () => {
    const server = fakeServer();
    let online = false;
    const gated = async (url: string, init: RequestInit) => {
      if (!online) throw new TypeError("offline");
      return server.fetch(url, init);
    };
    const { tracker, transport, outbox } = trackerOn({ ...server, fetch: gated });
    for (let s = 0; s < 10; s++) {
      tracker.track("MOUSE_MOVEMENT", P.MOUSE_MOVEMENT);
      tracker.track("PAGE_LOAD", P.PAGE_LOAD);
      await vi.advanceTimersByTimeAsync(1000);
    }
    tracker.track("LIKE", P.LIKE);
    await vi.advanceTimersByTimeAsync(100);
    expect(server.requests).toHaveLength(0);
    online = true;
    transport.retryNow();
    await vi.advanceTimersByTimeAsync(10_000);
    const seqs = server.requests.flatMap((r) => r.body.events.map((e) => e.seq)).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(tracker.buffered + outbox.size).toBe(0);
  });

  it("adopts the outbox of a session whose tab is gone, sending it under that session's id", async () => {
    const local = memoryStore();
    const gone = trackerOn(fakeServer(["network-error"]), {
      local,
      sessionId: "11111111-1111-4111-8111-111111111111",
    });
    gone.tracker.track("LIKE", P.LIKE);
    await settle();
    gone.transport.dispose();
    await vi.advanceTimersByTimeAsync(ORPHAN_AFTER_MS);

    const server = fakeServer();
    const next = trackerOn(server, { local, sessionId: "22222222-2222-4222-8222-222222222222" });
    expect(next.outbox.adoptOrphans()).toBe(1);
    next.transport.start();
    await settle(20);
    expect(server.requests.map((r) => r.body.session_id)).toEqual(["11111111-1111-4111-8111-111111111111"]);
  });

  it("idle() resolves once everything is acknowledged, or at its timeout while backing off", async () => {
    const server = fakeServer(["network-error"]);
    const { tracker, transport } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    let done = false;
    void transport.idle(500).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it("keeps high-frequency batches out of a full localStorage first, and still sends them", async () => {
    const local = memoryStore();
    const setItem = local.setItem;
    local.setItem = (key, value) => {
      if (value.includes("MOUSE_MOVEMENT")) throw new DOMException("full", "QuotaExceededError");
      setItem(key, value);
    };
    const server = fakeServer(["network-error", "network-error", "network-error", "network-error"]);
    const { tracker, outbox } = trackerOn(server, { local });
    tracker.track("MOUSE_MOVEMENT", P.MOUSE_MOVEMENT);
    tracker.track("LIKE", P.LIKE);
    await vi.advanceTimersByTimeAsync(2000);
    expect(outbox.size).toBe(2);
    expect(outbox.unpersisted).toBe(1);
    expect(local.getItem(`${OUTBOX_PREFIX}7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11`)).toContain("LIKE");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(server.types().flat()).toEqual(expect.arrayContaining(["MOUSE_MOVEMENT", "LIKE"]));
    expect(outbox.size).toBe(0);
  });
});

describe("a participant who leaves the study leaves nothing behind in the browser", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 25, 9, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("forgets waiting batches and their stored copy when discarded, and keeps none tracked afterwards", async () => {
    const server = fakeServer(["network-error", "network-error", "network-error"]);
    const { tracker, transport, outbox, local, sessionId } = trackerOn(server);
    tracker.track("LIKE", P.LIKE);
    await settle();
    expect(local.getItem(OUTBOX_PREFIX + sessionId)).not.toBeNull();
    transport.dispose();
    outbox.discard();
    expect(outbox.size).toBe(0);
    expect(local.getItem(OUTBOX_PREFIX + sessionId)).toBeNull();
    // A page's last event, tracked while it unmounts, is not kept either.
    tracker.track("PAGE_EXIT", P.PAGE_EXIT);
    tracker.flush();
    await settle();
    expect(outbox.size).toBe(0);
    expect(local.getItem(OUTBOX_PREFIX + sessionId)).toBeNull();
  });
});
