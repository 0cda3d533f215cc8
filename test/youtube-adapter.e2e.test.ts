import type { Video } from "@feedlab/schemas";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./harness/app.ts";
import { launchBrowser, saveScreenshot } from "./harness/browser.ts";
import {
  createParticipantStudy,
  type ParticipantStudy,
  type RecordingProxy,
  type SentEvent,
  startRecordingProxy,
} from "./harness/participant.ts";
import { providerAction, serveProviderScript } from "./harness/provider.ts";

/**
 * A fake of the provider's iframe API (`YT.Player`), enough to drive the adapter: a player with a
 * clock, states, volume and rate, and `__fakeYT` hooks that act like a participant using the controls
 * inside the provider's iframe, which the page cannot see (the adapter only learns about them by
 * polling). It records when the adapter polls.
 */
const FAKE_IFRAME_API = `
(function () {
  var players = [];
  var polls = [];
  function Player(el, opts) {
    var target = typeof el === "string" ? document.getElementById(el) : el;
    this.frame = document.createElement("div");
    this.frame.setAttribute("data-fake-youtube", opts.videoId);
    this.frame.style.cssText = "width:100%;height:100%;background:#202124;color:#fff;display:grid;place-items:center";
    this.frame.textContent = "Fake YouTube player: " + opts.videoId;
    target.replaceWith(this.frame);
    this.events = opts.events || {};
    this.state = -1; this.time = 0; this.base = performance.now(); this.rate = 1;
    this.volume = 100; this.muted = false; this.duration = 30;
    var self = this;
    players.push(this);
    setTimeout(function () {
      if (self.events.onReady) self.events.onReady({ target: self });
      if (opts.playerVars && opts.playerVars.autoplay) self.playVideo();
    }, 50);
    this.ender = setInterval(function () {
      if (self.state === 1 && self.now() >= self.duration) { self.time = self.duration; self.setState(0); }
    }, 50);
  }
  Player.prototype.now = function () {
    return this.state === 1 ? Math.min(this.duration, this.time + ((performance.now() - this.base) / 1000) * this.rate) : this.time;
  };
  Player.prototype.freeze = function () { this.time = this.now(); this.base = performance.now(); };
  Player.prototype.setState = function (s) {
    this.freeze(); this.state = s;
    if (this.events.onStateChange) this.events.onStateChange({ data: s, target: this });
  };
  Player.prototype.playVideo = function () { this.setState(1); };
  Player.prototype.pauseVideo = function () { this.setState(2); };
  Player.prototype.seekTo = function (s) { this.freeze(); this.time = s; };
  Player.prototype.getCurrentTime = function () { return this.now(); };
  Player.prototype.getDuration = function () { return this.duration; };
  Player.prototype.getPlayerState = function () { polls.push(performance.now()); return this.state; };
  Player.prototype.getVolume = function () { return this.volume; };
  Player.prototype.setVolume = function (v) { this.volume = v; };
  Player.prototype.isMuted = function () { return this.muted; };
  Player.prototype.mute = function () { this.muted = true; };
  Player.prototype.unMute = function () { this.muted = false; };
  Player.prototype.getPlaybackRate = function () { return this.rate; };
  Player.prototype.setPlaybackRate = function (r) {
    this.freeze(); this.rate = r;
    if (this.events.onPlaybackRateChange) this.events.onPlaybackRateChange({ data: r });
  };
  Player.prototype.getIframe = function () { return this.frame; };
  Player.prototype.destroy = function () { clearInterval(this.ender); this.frame.remove(); };
  window.YT = { Player: Player, PlayerState: { UNSTARTED: -1, ENDED: 0, PLAYING: 1, PAUSED: 2, BUFFERING: 3, CUED: 5 } };
  // What a participant does inside the provider's iframe: no callback tells the page about seeks,
  // volume or rate (only state changes have one), so the adapter must notice them by polling.
  window.__fakeYT = {
    players: players,
    polls: polls,
    current: function () { return players[players.length - 1]; },
    seek: function (s) { players[players.length - 1].seekTo(s); },
    volume: function (v) { players[players.length - 1].volume = v; },
    rate: function (r) { var p = players[players.length - 1]; p.freeze(); p.rate = r; },
    pause: function () { players[players.length - 1].pauseVideo(); },
    buffer: function (ms) {
      var p = players[players.length - 1];
      p.setState(3);
      setTimeout(function () { p.setState(1); }, ms);
    },
  };
  setTimeout(function () { if (window.onYouTubeIframeAPIReady) window.onYouTubeIframeAPIReady(); }, 0);
})();
`;

const fake = (page: Page, action: string, ...args: unknown[]) =>
  providerAction(page, "__fakeYT", action, ...args);

describe("the YouTube adapter against a fake of the provider's iframe API", () => {
  let app: TestApp;
  let wire: RecordingProxy;
  let youtube: Awaited<ReturnType<typeof serveProviderScript>>;
  let browser: Browser;
  let study: ParticipantStudy;
  let clip: Video;
  beforeAll(async () => {
    app = await startTestApp("pglite");
    wire = await startRecordingProxy(app.url);
    youtube = await serveProviderScript("/iframe_api", FAKE_IFRAME_API);
    browser = await launchBrowser();
    study = await createParticipantStudy(await app.admin(), {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 4,
      extra: [
        {
          external_id: "yt-rick",
          url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
          title: "A provider-hosted video",
          channel_name: "Provider Channel",
          duration_seconds: 30,
          published_at: new Date(Date.UTC(2027, 0, 1)).toISOString(),
        },
      ],
    });
    clip = study.videos.find((v) => v.external_id === "yt-rick") as Video;
    expect(clip.type).toBe("youtube");
  });
  afterAll(async () => {
    await browser?.close();
    await youtube?.close();
    await wire?.close();
    await app?.stop();
  });

  it("derives the playback events by polling, seeks from jumps, and marks them source youtube", async () => {
    // The app's CSP admits the provider's script origin only; the fake lives on a local port.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
    await context.addInitScript((url) => {
      (window as unknown as { FEEDLAB_YOUTUBE_API_URL: string }).FEEDLAB_YOUTUBE_API_URL = url;
    }, youtube.url);
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=yt-viewer`);
    await page.waitForURL(`${wire.url}/`);
    const first = page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first();
    await expect.poll(() => first.getAttribute("href")).toBe(`/watch/${clip.id}`);
    await first.click();
    await page.waitForURL(`${wire.url}/watch/${clip.id}`);
    await page.locator(`[data-fake-youtube="dQw4w9WgXcQ"]`).waitFor();
    expect(youtube.served()).toBe(1);

    // Plays (autoplay) for six seconds.
    await page.waitForTimeout(6500);
    // The participant seeks, changes volume and rate, stalls and pauses, all inside the iframe.
    await fake(page, "seek", 15);
    await page.waitForTimeout(1500);
    await fake(page, "volume", 40);
    await page.waitForTimeout(1500);
    await fake(page, "rate", 1.5);
    await page.waitForTimeout(1500);
    await fake(page, "buffer", 800);
    await page.waitForTimeout(1800);
    await fake(page, "pause");
    await page.waitForTimeout(1200);
    // Keyboard shortcuts on the page drive the provider's player through its API.
    await page.keyboard.press("k");
    await page.waitForTimeout(800);
    await saveScreenshot(page, "youtube-adapter-watch");
    await fake(page, "seek", 28.5);
    await wire.waitFor("VIDEO_ENDED", page, 10_000);

    const polls = (
      await page.evaluate(() => (window as unknown as { __fakeYT: { polls: number[] } }).__fakeYT.polls)
    ).slice(0, 400);
    // The tracker sends each kind of event on its own schedule (VIDEO_ENDED can go out before an
    // earlier VIDEO_BUFFERING): every kind has arrived before the page closes.
    const types = [
      "VIDEO_PLAY",
      "VIDEO_WATCHED_1S",
      "VIDEO_WATCHED_5S",
      "VIDEO_PROGRESS",
      "VIDEO_SEEK",
      "VOLUME_CHANGE",
      "PLAYBACK_RATE_CHANGE",
      "VIDEO_BUFFERING",
      "VIDEO_PAUSE",
      "KEYBOARD_SHORTCUT",
      "VIDEO_ENDED",
    ];
    await expect
      .poll(() => types.filter((t) => !wire.ofType(t).some((e) => e.video_id === "yt-rick")), {
        timeout: 15_000,
      })
      .toEqual([]);
    await context.close();

    const playback = (type: string) => wire.ofType(type).filter((e) => e.video_id === "yt-rick");
    for (const type of types) expect(playback(type).length, type).toBeGreaterThanOrEqual(1);
    const all = types.flatMap(playback);
    expect(all.every((e: SentEvent) => e.payload.source === "youtube")).toBe(true);

    expect(playback("VIDEO_WATCHED_1S")).toHaveLength(1);
    expect(playback("VIDEO_WATCHED_5S")).toHaveLength(1);
    expect(playback("VIDEO_WATCHED_5S")[0]?.watch_duration).toBeGreaterThanOrEqual(5);
    // The jump to 15 s, from where the last poll saw the playhead (about 6.5 s in).
    const seek = playback("VIDEO_SEEK").find((e) => Math.abs((e.payload.to as number) - 15) < 0.6);
    expect(seek?.payload.from).toBeGreaterThan(5);
    expect(seek?.payload.from).toBeLessThan(8);
    expect(playback("VOLUME_CHANGE")[0]?.payload).toMatchObject({
      volume: 0.4,
      previousVolume: 1,
      muted: false,
    });
    expect(playback("PLAYBACK_RATE_CHANGE")[0]?.payload).toMatchObject({ newRate: 1.5 });
    expect(playback("KEYBOARD_SHORTCUT")[0]?.payload).toMatchObject({ key: "k", action: "toggle_play" });
    expect(playback("VIDEO_PLAY").length).toBeGreaterThanOrEqual(2);
    expect(playback("VIDEO_ENDED")[0]).toMatchObject({
      watch_ratio: expect.any(Number),
      watch_duration: expect.any(Number),
      payload: { duration: 30, completionRate: expect.any(Number) },
    });
    // Watched time excludes the seeks: about 6.5 s + the stretches between the later actions.
    expect(playback("VIDEO_ENDED")[0]?.watch_duration).toBeLessThan(20);

    // Polling stays within the spec's 250 to 1000 ms (one poll reads the state several times: calls
    // closer than 50 ms belong to the same poll).
    const gaps = polls
      .slice(1)
      .map((t, i) => t - (polls[i] as number))
      .filter((gap) => gap > 50)
      .sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] as number;
    expect(median).toBeGreaterThanOrEqual(250);
    expect(median).toBeLessThanOrEqual(1000);

    // The server accepted all of it.
    expect(wire.batches.flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);
  }, 120_000);
});
