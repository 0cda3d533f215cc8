import { createEventValidator } from "@feedlab/ingest";
import { EVENT_TYPES, HIGH_FREQUENCY_TYPES, IMMEDIATE_TYPES, type Video } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FULL_CHROMIUM, saveScreenshot } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import {
  createParticipantStudy,
  type ParticipantStudy,
  type RecordingProxy,
  type SentBatch,
  startRecordingProxy,
  VIEWPORTS,
  wander,
} from "./harness/participant.ts";

/** Every type a surface or data hook emits: all 33 but LAYOUT_CHANGE, which only useTracking() sends. */
const SURFACE_TYPES = EVENT_TYPES.filter((t) => t !== "LAYOUT_CHANGE");
const isHighFrequency = (type: string) => HIGH_FREQUENCY_TYPES.has(type as never);
const isImmediate = (type: string) => IMMEDIATE_TYPES.has(type as never);
/** Scheduling slack on a loaded 2-core machine: a timer and the request leaving the browser. */
const SLACK_MS = 700;

/**
 * The browser offers no way to hide a headless tab, so the test flips `document.visibilityState` and
 * dispatches the event the browser would dispatch on a tab switch; everything after it is the app's.
 */
async function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (h ? "hidden" : "visible"),
    });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

const idOfHref = (href: string | null) => href?.split("/").pop() ?? "";

describe("a participant's journey in Chromium, on the wire and in the events store", () => {
  // The whole browser, not the headless shell the other files drive: switching tabs moves real window
  // focus there (WINDOW_BLUR, WINDOW_FOCUS), and the shell's pages have no windows to move it between.
  const suite = e2eSuite({ browser: { executablePath: FULL_CHROMIUM } });
  let study: ParticipantStudy;
  let wire: RecordingProxy;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
    study = await createParticipantStudy(suite.api, { ui: { feed: "grid-desktop", watch: "grid-desktop" } });
  });
  afterAll(async () => {
    await wire?.close();
  });

  it("emits every surface event type with its payload, columns and flush timing, loses nothing offline or on reload, and drops the watched video from the feed", async () => {
    const site = wire.url;
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    // Media arrive a little late, so playback first waits for data (VIDEO_BUFFERING) as on a slow link.
    await page.route("**/media/demo/*.webm", async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });

    // 1. Joins through a Prolific link and lands on the feed.
    await page.goto(`${site}/join/${study.experimentId}?PROLIFIC_PID=journey-1&STUDY_ID=s1&SESSION_ID=x`);
    await page.waitForURL(`${site}/`);
    const feedCards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => feedCards.count()).toBe(20);
    const sessionId = await page.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    // 2. Reads the feed for a while, moving the mouse.
    const readingFrom = Date.now();
    await wander(page, 7500);
    const readingUntil = Date.now();

    // 3. Scrolls to the end, where the next chunk loads, and back to the top.
    for (let i = 0; i < 8 && (await feedCards.count()) < 26; i++) {
      await page.mouse.wheel(0, 1200);
      await page.waitForTimeout(400);
    }
    await expect.poll(() => feedCards.count()).toBe(26);
    await page.mouse.wheel(0, -30_000);
    await page.waitForTimeout(700);

    // 4. Switches to another tab and back (with real window focus, which blurs the page); the tab is
    // hidden for a moment.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setFocusEmulationEnabled", { enabled: false });
    const other = await context.newPage();
    await other.bringToFront();
    await page.waitForTimeout(300);
    await page.bringToFront();
    await other.close();
    await setTabHidden(page, true);
    await page.waitForTimeout(300);
    await setTabHidden(page, false);

    // 5. Hovers one card without clicking, then hovers the second one and clicks it.
    await saveScreenshot(page, "journey-feed");
    await feedCards.nth(3).hover();
    await page.waitForTimeout(400);
    await feedCards.nth(1).hover();
    await page.waitForTimeout(600);
    const chosenId = idOfHref(await feedCards.nth(1).getAttribute("href"));
    const chosen = study.videos.find((v) => v.id === chosenId) as Video;
    expect(chosen).toBeDefined();
    await feedCards.nth(1).click();
    await page.waitForURL(`${site}/watch/${chosen.id}`);

    // 6. Watches six seconds.
    const player = page.locator("video");
    await player.waitFor();
    await expect
      .poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 })
      .toBeGreaterThan(6.2);
    await wander(page, 600);

    // 7. Uses the player's keyboard shortcuts: pause and play, faster, mute, skip ahead, fullscreen.
    for (const key of ["k", "k", "Shift+Period", "m", "ArrowRight", "f"]) {
      await page.keyboard.press(key);
      await page.waitForTimeout(350);
    }
    await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(true);
    await page.keyboard.press("f");
    await page.waitForTimeout(350);

    // 8. Likes the video, then changes their mind.
    const likedAt = Date.now();
    await page.getByRole("button", { name: "Like", exact: true }).click();
    await wire.waitFor("LIKE", page);
    const likeBatch = wire.batches.find((b) => b.events.some((e) => e.event_type === "LIKE")) as SentBatch;
    await page.getByRole("button", { name: "Dislike", exact: true }).click();
    await expect
      .poll(() => page.getByRole("button", { name: "Dislike", exact: true }).getAttribute("aria-pressed"))
      .toBe("true");

    // 9. Jumps to 90 % and watches to the end.
    await page.keyboard.press("9");
    await wire.waitFor("VIDEO_ENDED", page, 20_000);
    await saveScreenshot(page, "journey-watch");

    // 10. Opens a related video, then goes back to the first one and to the feed.
    const relatedCards = page.getByRole("list", { name: "Related videos" }).getByRole("link");
    await relatedCards.first().hover();
    await page.waitForTimeout(300);
    await relatedCards.first().click();
    await page.waitForURL((url) => url.pathname.startsWith("/watch/") && !url.pathname.endsWith(chosen.id));
    await page.waitForTimeout(500);
    await page.goBack();
    await page.waitForURL(`${site}/watch/${chosen.id}`);
    await page.getByRole("heading", { name: chosen.title }).waitFor();
    await page.waitForTimeout(500);
    await page.goBack();
    await page.waitForURL(`${site}/`);

    // The video watched a moment ago is gone from the feed.
    await expect.poll(() => feedCards.count()).toBeGreaterThan(0);
    const feedIds = await feedCards.evaluateAll((links) =>
      links.map((a) => a.getAttribute("href")?.split("/").pop()),
    );
    expect(feedIds).not.toContain(chosen.id);

    // 11. The network goes away for 10 s while the participant keeps reading; nothing is lost.
    await context.setOffline(true);
    const offlineFrom = Date.now();
    await wander(page, 5000);
    await page.mouse.wheel(0, 800);
    await wander(page, 5000);
    await context.setOffline(false);
    const offlineUntil = Date.now();
    await page.waitForTimeout(3000);

    // 12. The event endpoint fails while the participant reloads: the outbox survives the reload.
    await page.route("**/api/v1/events", (route) => route.abort("connectionfailed"));
    await wander(page, 2600);
    await page.reload();
    await page.waitForURL(`${site}/`);
    await page.unroute("**/api/v1/events");
    await wander(page, 2500);
    await page.waitForTimeout(2000);

    // 13. Leaves the site: beacons carry the page exit and the end of the session. Every batch still
    //     unconfirmed goes by beacon too, each its own (on a slow machine a batch of the reloaded page
    //     may still be on its way), so the exit need not be in the first beacon.
    const beforeLeaving = wire.batches.length;
    await page.goto("about:blank");
    await expect
      .poll(() =>
        wire.batches
          .slice(beforeLeaving)
          .filter((b) => b.beacon)
          .flatMap((b) => b.events.map((e) => e.event_type)),
      )
      .toEqual(expect.arrayContaining(["PAGE_EXIT", "SESSION_END"]));
    await context.close();

    // --- The wire ---------------------------------------------------------------------------------
    const events = wire.events();
    const byId = new Map(events.map((e) => [e.event_id, e]));
    const types = new Set(events.map((e) => e.event_type));
    expect([...SURFACE_TYPES].filter((t) => !types.has(t))).toEqual([]);
    expect(types.has("LAYOUT_CHANGE")).toBe(false);

    // One session; each event valid against the contract, and every batch accepted whole.
    expect(new Set(wire.batches.map((b) => b.sessionId))).toEqual(new Set([sessionId]));
    const check = createEventValidator();
    for (const e of byId.values())
      expect(check(e), `${e.event_type} ${JSON.stringify(e)}`).toMatchObject({ kind: "ok" });
    expect(wire.batches.filter((b) => b.status !== 202 && b.status !== 0)).toEqual([]);
    expect(wire.batches.flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);

    // A resent event keeps its id and seq; the seqs of the session run 1..n without a gap.
    for (const e of events) expect(byId.get(e.event_id)?.seq).toBe(e.seq);
    const seqs = [...byId.values()].map((e) => e.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));

    // Videos are named by their external id everywhere.
    const externals = new Set(study.videos.map((v) => v.external_id));
    for (const e of byId.values())
      if (e.video_id !== undefined) expect(externals.has(e.video_id), e.event_type).toBe(true);
    const one = (type: string) => wire.ofType(type)[0] as NonNullable<ReturnType<typeof wire.ofType>[number]>;

    expect(wire.ofType("SESSION_START")).toHaveLength(1);
    expect(one("SESSION_START").payload).toMatchObject({
      sessionId,
      initialPageType: "feed",
      environment: {
        viewport: VIEWPORTS.desktop,
        language: expect.any(String),
        timezone: expect.any(String),
      },
    });
    expect(wire.ofType("HOME_FEED").map((e) => e.payload.videoCount)).toEqual(
      expect.arrayContaining([20, 6]),
    );
    const secondChunk = wire.ofType("HOME_FEED").find((e) => e.payload.videoCount === 6);
    const secondVideos = (secondChunk?.payload.videos ?? []) as { position: number }[];
    expect(secondVideos.map((v) => v.position)).toEqual([20, 21, 22, 23, 24, 25]);
    for (const e of wire.ofType("IMPRESSION")) expect(e.position_in_feed).toEqual(expect.any(Number));
    expect(one("FEED_CLICK")).toMatchObject({ video_id: chosen.external_id, position_in_feed: 1 });
    const hovers = wire.ofType("THUMBNAIL_HOVER");
    const clickedHover = hovers.find(
      (h) => h.payload.followed_by_click === true && h.payload.context === "feed",
    );
    expect(clickedHover?.payload).toMatchObject({
      videoId: chosen.external_id,
      title: chosen.title,
      position: 1,
      context: "feed",
      hoverDurationMs: expect.any(Number),
    });
    expect(clickedHover?.payload.hoverDurationMs).toBeGreaterThanOrEqual(500);
    expect(hovers.some((h) => h.payload.followed_by_click === false && h.payload.position === 3)).toBe(true);
    expect(one("NAVIGATION").payload).toMatchObject({
      from: "/",
      to: `/watch/${chosen.id}`,
      pageType: "feed",
    });
    // History traversals count too: back from the watch page to the feed.
    expect(wire.ofType("NAVIGATION").map((e) => e.payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: `/watch/${chosen.id}`, to: "/", pageType: "watch" }),
      ]),
    );
    expect(one("PAGE_EXIT").payload.dwellTimeMs).toBeGreaterThan(5000);

    for (const m of wire.ofType("MOUSE_MOVEMENT")) {
      expect(m.payload).toMatchObject({
        samplingIntervalMs: 100,
        context: expect.stringMatching(/^(feed|watch)$/),
      });
      expect(m.payload.duration).toBeLessThanOrEqual(2000 + SLACK_MS);
      const ts = (m.payload.positions as { t: number }[]).map((p) => p.t);
      for (let i = 1; i < ts.length; i++)
        expect((ts[i] as number) - (ts[i - 1] as number)).toBeGreaterThanOrEqual(90);
    }
    expect(
      Math.max(...wire.ofType("SCROLL").map((s) => s.payload.maxScrollPercent as number)),
    ).toBeGreaterThan(90);
    expect(one("VIEWPORT_VISIBILITY").payload.visibleItems).toEqual(
      expect.arrayContaining([expect.objectContaining({ position: 0, visibilityRatio: expect.any(Number) })]),
    );
    expect(wire.ofType("VISIBILITY_CHANGE").map((e) => e.payload.visibilityState)).toEqual([
      "hidden",
      "visible",
    ]);

    expect(one("VIDEO_META_CAPTURED").payload).toMatchObject({
      videoId: chosen.external_id,
      title: chosen.title,
      channelName: chosen.channel_name,
      tags: chosen.tags,
      duration: 25,
    });
    expect(one("RECOMMENDATIONS").payload).toMatchObject({ currentVideoId: chosen.external_id });
    const playback = (type: string) => wire.ofType(type).filter((e) => e.video_id === chosen.external_id);
    expect(playback("VIDEO_PLAY")[0]?.payload).toMatchObject({
      currentTime: expect.any(Number),
      playbackRate: 1,
      source: "native",
    });
    expect(playback("VIDEO_WATCHED_1S")).toHaveLength(1);
    expect(playback("VIDEO_WATCHED_1S")[0]).toMatchObject({
      watch_duration: expect.any(Number),
      watch_ratio: expect.any(Number),
    });
    expect(playback("VIDEO_WATCHED_1S")[0]?.watch_duration).toBeGreaterThanOrEqual(1);
    expect(playback("VIDEO_WATCHED_5S")).toHaveLength(1);
    expect(playback("VIDEO_WATCHED_5S")[0]?.watch_duration).toBeGreaterThanOrEqual(5);
    expect(playback("VIDEO_PROGRESS").length).toBeGreaterThanOrEqual(1);
    expect(playback("VIDEO_PAUSE")[0]?.payload).toMatchObject({ watchedDuration: expect.any(Number) });
    expect(playback("VIDEO_SEEK").map((e) => e.payload.seekDistance)).toEqual(
      expect.arrayContaining([expect.closeTo(5, 0)]),
    );
    expect(playback("VIDEO_ENDED")[0]).toMatchObject({
      payload: {
        duration: expect.any(Number),
        totalWatchedTime: expect.any(Number),
        completionRate: expect.any(Number),
      },
      watch_ratio: expect.any(Number),
      watch_duration: expect.any(Number),
    });
    expect(playback("VIDEO_BUFFERING").length).toBeGreaterThanOrEqual(1);
    expect(playback("PLAYBACK_RATE_CHANGE")[0]?.payload).toMatchObject({ newRate: 1.25 });
    expect(playback("VOLUME_CHANGE")[0]?.payload).toMatchObject({ muted: true, previousMuted: false });
    expect(playback("FULLSCREEN_CHANGE").map((e) => e.payload.isFullscreen)).toEqual([true, false]);
    expect(playback("KEYBOARD_SHORTCUT").map((e) => e.payload.action)).toEqual(
      expect.arrayContaining([
        "toggle_play",
        "speed_up",
        "toggle_mute",
        "seek_forward_5",
        "toggle_fullscreen",
        "seek_to_90_percent",
      ]),
    );
    expect(one("LIKE")).toMatchObject({
      video_id: chosen.external_id,
      payload: { videoId: chosen.external_id, timestamp: expect.any(Number) },
    });
    expect(one("DISLIKE")).toMatchObject({ payload: { videoId: chosen.external_id } });
    expect(one("VIDEO_CLICK").payload).toMatchObject({
      fromVideoId: chosen.external_id,
      position: 0,
      context: "related",
    });
    expect(wire.ofType("SESSION_END")[0]?.payload).toEqual({ sessionId });

    // --- Flush timing (spec: Batching) ---------------------------------------------------------------
    const firstTs = (b: SentBatch) => Math.min(...b.events.map((e) => Date.parse(e.timestamp)));
    // The unload batch (it ends with SESSION_END) carries every buffer; a later page load resends it if
    // its beacon went unconfirmed.
    const unloadBatch = (b: SentBatch) => b.events.some((e) => e.event_type === "SESSION_END");
    for (const b of wire.batches.filter((x) => !x.beacon && !unloadBatch(x))) {
      const hf = b.events.filter((e) => isHighFrequency(e.event_type)).length;
      // High-frequency and normal events never share a flush, except on unload.
      expect([0, b.events.length], JSON.stringify(b.events.map((e) => e.event_type))).toContain(hf);
      expect(b.events.length).toBeLessThanOrEqual(hf > 0 ? 50 : 20);
    }
    // While reading the feed, timed flushes come 2 s (high-frequency) and 5 s (normal) after a
    // buffer's first event, or at 20 events.
    const reading = wire.batches.filter((b) => !b.beacon && b.at >= readingFrom && b.at <= readingUntil);
    const hfReading = reading.filter((b) => isHighFrequency(b.events[0]?.event_type ?? ""));
    expect(hfReading.length).toBeGreaterThanOrEqual(2);
    for (const b of hfReading) {
      expect(b.at - firstTs(b)).toBeGreaterThanOrEqual(2000 - 50);
      expect(b.at - firstTs(b)).toBeLessThanOrEqual(2000 + SLACK_MS);
    }
    const normalReading = reading.filter(
      (b) => !isHighFrequency(b.events[0]?.event_type ?? "") && !isImmediate(b.events[0]?.event_type ?? ""),
    );
    expect(normalReading.length).toBeGreaterThanOrEqual(1);
    for (const b of normalReading) {
      if (b.events.length === 20) continue;
      expect(b.at - firstTs(b)).toBeGreaterThanOrEqual(5000 - 50);
      expect(b.at - firstTs(b)).toBeLessThanOrEqual(5000 + SLACK_MS);
    }
    // Immediate types go alone, at once.
    expect(likeBatch.events.every((e) => isImmediate(e.event_type))).toBe(true);
    expect(likeBatch.at - likedAt).toBeLessThan(1500);

    // Events formed offline were sent once the network came back.
    const offlineEvents = [...byId.values()].filter((e) => {
      const t = Date.parse(e.timestamp);
      return t > offlineFrom + 500 && t < offlineUntil - 500;
    });
    expect(offlineEvents.length).toBeGreaterThan(5);

    // --- The events store ----------------------------------------------------------------------------
    // Every batch the browser sent has been answered (the last beacons may still have been on their way).
    await wire.settled();
    await expect(
      suite.app.runtime.progress.waitFor(await suite.app.runtime.eventLog.position(), 20_000),
    ).resolves.toBe(true);
    const stored = (await suite.app.runtime
      .db("events")
      .where({ session_id: sessionId })
      .select("event_id", "event_type", "seq", "algorithm_feed", "algorithm_watch", "video_id")) as {
      event_id: string;
      event_type: string;
      seq: string | number;
      algorithm_feed: string;
      algorithm_watch: string;
    }[];
    expect(stored.map((r) => r.event_id).sort()).toEqual([...byId.keys()].sort());
    expect(stored.every((r) => r.algorithm_feed === "recency" && r.algorithm_watch === "recency")).toBe(true);
    const exported = await suite.api.request(
      "GET",
      `/api/v1/admin/experiments/${study.experimentId}/events?format=ndjson`,
    );
    const lines = exported.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event_id: string; session_id: string });
    expect(lines.filter((l) => l.session_id === sessionId)).toHaveLength(byId.size);
  }, 240_000);
});
