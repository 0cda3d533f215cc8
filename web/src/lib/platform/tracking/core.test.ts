import { EXAMPLE_PAYLOADS } from "@feedlab/schemas/events/examples.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TrackingCore } from "./core.ts";
import { ENTRY_REFERRER_KEY, SESSION_ID_KEY, SessionStore } from "./session.ts";
import { memoryStore } from "./storage.ts";
import { fakeServer, seqId, settle } from "./test-helpers.ts";

const SESSION = "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11";

/** Enough of a window for the core: lifecycle events, location, navigator, screen. */
function fakeWindow() {
  const win = new EventTarget() as EventTarget & Record<string, unknown>;
  const doc = new EventTarget() as EventTarget & Record<string, unknown>;
  doc.visibilityState = "visible";
  doc.referrer = "https://app.prolific.com/";
  Object.assign(win, {
    document: doc,
    location: { href: "http://study.test/" },
    innerWidth: 1280,
    innerHeight: 720,
    devicePixelRatio: 1,
    screen: { width: 1920, height: 1080 },
    navigator: { userAgent: "test-agent", language: "en-GB", platform: "Linux x86_64" },
  });
  return { win: win as unknown as Window, doc };
}

function coreOn(server: ReturnType<typeof fakeServer>, beacons: string[] = [], session = memoryStore()) {
  const { win, doc } = fakeWindow();
  const core = new TrackingCore({
    sessionId: SESSION,
    fetch: server.fetch,
    sendBeacon: (_url, blob) => {
      void blob.text().then((t) => beacons.push(t));
      return true;
    },
    localStore: memoryStore(),
    sessionStore: session,
    newId: seqId,
    win,
  });
  return { core, win, doc };
}

describe("the tracking core's session and page lifecycle", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 21, 9, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("names the join page's referrer in SESSION_START when the join page handed it over, once", async () => {
    const server = fakeServer();
    const session = memoryStore();
    // The join page (another app) saw the recruitment site; the feed's own referrer is the join page.
    session.setItem(ENTRY_REFERRER_KEY, "https://recruit.example/study-42");
    const { core, win, doc } = coreOn(server, [], session);
    doc.referrer = "http://study.test/join/x";
    core.startSession("feed", win);
    await vi.advanceTimersByTimeAsync(5000);
    const start = server.requests.flatMap((r) => r.body.events).find((e) => e.event_type === "SESSION_START");
    expect((start as unknown as { payload: { referrer: string } }).payload.referrer).toBe(
      "https://recruit.example/study-42",
    );
    expect(session.getItem(ENTRY_REFERRER_KEY)).toBeNull();
  });

  it("emits SESSION_START once per session with the environment, not again on a reload", async () => {
    const server = fakeServer();
    const session = memoryStore();
    const first = coreOn(server, [], session);
    first.core.startSession("feed", first.win);
    first.core.startSession("watch", first.win);
    const again = coreOn(server, [], session);
    again.core.startSession("feed", again.win);
    await vi.advanceTimersByTimeAsync(5000);
    const starts = server.requests
      .flatMap((r) => r.body.events)
      .filter((e) => e.event_type === "SESSION_START");
    expect(starts).toHaveLength(1);
    expect((starts[0] as unknown as { payload: unknown }).payload).toMatchObject({
      sessionId: SESSION,
      referrer: "https://app.prolific.com/",
      initialUrl: "http://study.test/",
      initialPageType: "feed",
      environment: {
        viewport: { width: 1280, height: 720 },
        screen: { width: 1920, height: 1080 },
        userAgent: "test-agent",
        language: "en-GB",
        platform: "Linux x86_64",
      },
    });
  });

  it("leave() runs the exit hooks first, then flushes every buffer", async () => {
    const server = fakeServer();
    const { core } = coreOn(server);
    core.tracker.track("PAGE_LOAD", EXAMPLE_PAYLOADS.PAGE_LOAD);
    core.tracker.track("SCROLL", EXAMPLE_PAYLOADS.SCROLL);
    core.onLeave(({ to }) => {
      core.tracker.track("NAVIGATION", { ...EXAMPLE_PAYLOADS.NAVIGATION, to: to ?? "" });
      core.tracker.track("PAGE_EXIT", EXAMPLE_PAYLOADS.PAGE_EXIT);
    });
    core.leave("/watch/abc");
    await settle(40);
    expect(server.types()).toEqual([["PAGE_EXIT"], ["PAGE_LOAD", "NAVIGATION"], ["SCROLL"]]);
    expect(await core.settled(100)).toBe("p1.0-4");
  });

  it("on pagehide sends the exit events, SESSION_END and everything buffered in one beacon", async () => {
    const server = fakeServer();
    const beacons: string[] = [];
    const { core, win } = coreOn(server, beacons);
    core.tracker.track("SCROLL", EXAMPLE_PAYLOADS.SCROLL);
    core.onLeave(({ unloading }) => {
      expect(unloading).toBe(true);
      core.tracker.track("MOUSE_MOVEMENT", EXAMPLE_PAYLOADS.MOUSE_MOVEMENT);
    });
    win.dispatchEvent(new Event("pagehide"));
    await settle();
    expect(server.requests).toHaveLength(0);
    expect(beacons.map((b) => JSON.parse(b).events.map((e: { event_type: string }) => e.event_type))).toEqual(
      [["SCROLL", "MOUSE_MOVEMENT", "SESSION_END"]],
    );
  });

  it("flushes the buffers when the page is hidden and tells the surfaces about it", async () => {
    const server = fakeServer();
    const { core, doc } = coreOn(server);
    const signals: unknown[] = [];
    core.onSignal((s) => {
      signals.push(s);
      core.tracker.track("VISIBILITY_CHANGE", { visible: false, visibilityState: "hidden" });
    });
    core.tracker.track("PAGE_LOAD", EXAMPLE_PAYLOADS.PAGE_LOAD);
    doc.visibilityState = "hidden";
    doc.dispatchEvent(new Event("visibilitychange"));
    await settle(20);
    expect(signals).toEqual([{ type: "visibility", visible: false, visibilityState: "hidden" }]);
    expect(server.types()).toEqual([["PAGE_LOAD", "VISIBILITY_CHANGE"]]);
  });

  it("retries at once when the browser comes back online", async () => {
    const server = fakeServer(["network-error"]);
    const { core, win } = coreOn(server);
    core.tracker.track("LIKE", EXAMPLE_PAYLOADS.LIKE);
    await settle();
    expect(core.transport.backingOff).toBe(true);
    win.dispatchEvent(new Event("online"));
    await settle();
    expect(server.requests).toHaveLength(2);
  });
});

describe("the session store", () => {
  it("creates a session id, registers it once, and keeps it for the tab", async () => {
    const store = memoryStore();
    const registered: string[] = [];
    const register = async (id: string) => {
      registered.push(id);
      return "ok" as const;
    };
    const id = await new SessionStore(store, seqId).ensure(register);
    expect(store.getItem(SESSION_ID_KEY)).toBe(id);
    expect(await new SessionStore(store, seqId).ensure(register)).toBe(id);
    expect(registered).toEqual([id]);
  });

  it("starts a new session when the id belongs to another participant, or another participant joins", async () => {
    const store = memoryStore();
    const taken = new Set<string>();
    const register = async (id: string) => (taken.has(id) ? ("taken" as const) : ("ok" as const));
    const sessions = new SessionStore(store, seqId);
    const first = await sessions.ensure(register);
    sessions.bindUser("user-a");
    sessions.bindUser("user-b");
    const second = await sessions.ensure(register);
    expect(second).not.toBe(first);

    store.removeItem("feedlab.session_registered");
    taken.add(second);
    const third = await new SessionStore(store, seqId).ensure(register);
    expect(third).not.toBe(second);
  });
});
