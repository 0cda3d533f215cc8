import type { Video } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import {
  createParticipantStudy,
  type ParticipantStudy,
  type RecordingProxy,
  type SentEvent,
  startRecordingProxy,
} from "./harness/participant.ts";
import { providerAction, serveProviderScript } from "./harness/provider.ts";
import { vimeoStandIn } from "./harness/provider-stand-ins.ts";

const fake = (page: Page, action: string, ...args: unknown[]) =>
  providerAction(page, "__fakeVimeo", action, ...args);

/** What the stand-in recorded of a seek: the playhead it jumped from, and the one the adapter last read. */
interface Jump {
  readonly from: number;
  readonly lastRead: number;
}
const seek = async (page: Page, how: "seek" | "quietSeek", to: number) =>
  (await fake(page, how, to)) as unknown as Jump;

describe("the Vimeo adapter against a stand-in of the provider's Player API", () => {
  const suite = e2eSuite();
  let wire: RecordingProxy;
  let vimeo: Awaited<ReturnType<typeof serveProviderScript>>;
  let study: ParticipantStudy;
  let clip: Video;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
    vimeo = await serveProviderScript("/api/player.js", vimeoStandIn());
    study = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 4,
      extra: [
        {
          external_id: "vimeo-clip",
          url: "https://vimeo.com/76979871",
          title: "A Vimeo-hosted video",
          channel_name: "Provider Channel",
          duration_seconds: 30,
          published_at: new Date(Date.UTC(2027, 0, 1)).toISOString(),
        },
      ],
    });
    clip = study.videos.find((v) => v.external_id === "vimeo-clip") as Video;
    expect(clip.type).toBe("vimeo");
  });
  afterAll(async () => {
    await vimeo?.close();
    await wire?.close();
  });

  it("derives the playback events from the API's events and polls, and marks them source vimeo", async () => {
    // The app's CSP admits the provider's script origin only; the stand-in lives on a local port.
    const context = await suite.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
    await context.addInitScript((url) => {
      (window as unknown as { FEEDLAB_VIMEO_API_URL: string }).FEEDLAB_VIMEO_API_URL = url;
    }, vimeo.url);
    // The provider's page inside the iframe, as a stand-in (the network is closed).
    await context.route("https://player.vimeo.com/video/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: "<!doctype html><title>Stand-in Vimeo player</title><body style='background:#1a2e3b;color:#fff'>Stand-in Vimeo player</body>",
      }),
    );
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=vimeo-viewer`);
    await page.waitForURL(`${wire.url}/`);
    const first = page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first();
    await expect.poll(() => first.getAttribute("href")).toBe(`/watch/${clip.id}`);
    await first.click();
    await page.waitForURL(`${wire.url}/watch/${clip.id}`);
    const iframe = page.locator('[data-feedlab-player="vimeo"] iframe');
    await iframe.waitFor();
    expect(await iframe.getAttribute("src")).toContain("https://player.vimeo.com/video/76979871?autoplay=1");
    expect(await iframe.getAttribute("src")).toContain("dnt=1");
    await expect.poll(() => vimeo.served()).toBe(1);

    // Plays (autoplay) for six seconds.
    await page.waitForTimeout(6500);
    const toFifteen = await seek(page, "seek", 15);
    await page.waitForTimeout(1500);
    // A jump no event tells of: polling finds it.
    const toTwenty = await seek(page, "quietSeek", 20);
    await page.waitForTimeout(1500);
    await fake(page, "volume", 0.4);
    await page.waitForTimeout(1000);
    await fake(page, "rate", 1.5);
    await page.waitForTimeout(1000);
    await fake(page, "buffer", 800);
    await page.waitForTimeout(1500);
    await fake(page, "pause");
    await page.waitForTimeout(1000);
    // Keyboard shortcuts on the page drive the provider's player through its API.
    await page.keyboard.press("k");
    await page.waitForTimeout(800);
    await saveScreenshot(page, "vimeo-adapter-watch");
    await wire.waitFor("VIDEO_ENDED", page, 15_000);
    const played = (await fake(page, "played")) as unknown as number;
    const reads = (
      await page.evaluate(() => (window as unknown as { __fakeVimeo: { reads: number[] } }).__fakeVimeo.reads)
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
      .poll(() => types.filter((t) => !wire.ofType(t).some((e) => e.video_id === "vimeo-clip")), {
        timeout: 15_000,
      })
      .toEqual([]);
    await context.close();

    const playback = (type: string) => wire.ofType(type).filter((e) => e.video_id === "vimeo-clip");
    for (const type of types) expect(playback(type).length, type).toBeGreaterThanOrEqual(1);
    expect(types.flatMap(playback).every((e: SentEvent) => e.payload.source === "vimeo")).toBe(true);
    expect(playback("VIDEO_WATCHED_1S")).toHaveLength(1);
    expect(playback("VIDEO_WATCHED_5S")).toHaveLength(1);

    const seeks = playback("VIDEO_SEEK").map((e) => e.payload as { from: number; to: number });
    // The seek with an event and the quiet one (found by polling), each from where the adapter last
    // read the playhead, as the stand-in recorded it.
    for (const [to, jump] of [
      [15, toFifteen],
      [20, toTwenty],
    ] as const) {
      const sought = seeks.find((s) => Math.abs(s.to - to) < 1);
      expect([to, Math.abs((sought?.from ?? -1) - jump.lastRead) < 0.1]).toEqual([to, true]);
    }
    expect(playback("VOLUME_CHANGE")[0]?.payload).toMatchObject({ volume: 0.4, previousVolume: 1 });
    expect(playback("PLAYBACK_RATE_CHANGE")[0]?.payload).toMatchObject({ newRate: 1.5 });
    expect(playback("KEYBOARD_SHORTCUT")[0]?.payload).toMatchObject({ key: "k", action: "toggle_play" });
    expect(playback("VIDEO_PLAY").length).toBeGreaterThanOrEqual(2);
    expect(playback("VIDEO_ENDED")[0]).toMatchObject({
      watch_duration: expect.any(Number),
      payload: { duration: 30, completionRate: expect.any(Number) },
    });
    // Watched time is at most what the player played, less what it played after the last reading before
    // each seek (a reading sees the jump, not the stretch before it); a reading the machine delayed past the
    // tracker's largest step leaves its stretch out too, so below that only the 5 s mark is sure.
    const unseen = [toFifteen, toTwenty].reduce((sum, j) => sum + (j.from - j.lastRead), 0);
    const watched = playback("VIDEO_ENDED")[0]?.watch_duration ?? 0;
    expect(watched).toBeLessThanOrEqual(played - unseen + 0.01);
    expect(watched).toBeGreaterThanOrEqual(5);

    // Polling within the spec's 250 to 1000 ms (reads closer than 50 ms belong to one event burst).
    const gaps = reads
      .slice(1)
      .map((t, i) => t - (reads[i] as number))
      .filter((gap) => gap > 50)
      .sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] as number;
    expect(median).toBeGreaterThanOrEqual(200);
    expect(median).toBeLessThanOrEqual(1000);
    expect(wire.batches.flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);
  }, 120_000);
});
