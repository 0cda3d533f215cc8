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
import { youtubeStandIn } from "./harness/provider-stand-ins.ts";

const fake = (page: Page, action: string, ...args: unknown[]) =>
  providerAction(page, "__fakeYT", action, ...args);

/** What the stand-in recorded of a seek: the playhead it jumped from, and the one the adapter last read. */
interface Jump {
  readonly from: number;
  readonly lastRead: number;
}
const seek = async (page: Page, to: number) => (await fake(page, "seek", to)) as unknown as Jump;

describe("the YouTube adapter against a fake of the provider's iframe API", () => {
  const suite = e2eSuite();
  let wire: RecordingProxy;
  let youtube: Awaited<ReturnType<typeof serveProviderScript>>;
  let study: ParticipantStudy;
  let clip: Video;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
    youtube = await serveProviderScript("/iframe_api", youtubeStandIn());
    study = await createParticipantStudy(suite.api, {
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
    await youtube?.close();
    await wire?.close();
  });

  it("derives the playback events by polling, seeks from jumps, and marks them source youtube", async () => {
    // The app's CSP admits the provider's script origin only; the fake lives on a local port.
    const context = await suite.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
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
    const toFifteen = await seek(page, 15);
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
    const toEnd = await seek(page, 28.5);
    await wire.waitFor("VIDEO_ENDED", page, 10_000);
    const played = (await fake(page, "played")) as unknown as number;

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
    // The jump to 15 s, from where the last poll saw the playhead (as the stand-in recorded it).
    const sought = playback("VIDEO_SEEK").find((e) => Math.abs((e.payload.to as number) - 15) < 0.6);
    expect(Math.abs((sought?.payload.from as number) - toFifteen.lastRead)).toBeLessThan(0.1);
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
    // Watched time is at most what the player played, less what it played after the last poll before
    // each seek (a poll sees the jump, not the stretch before it); a poll the machine delayed past the
    // tracker's largest step leaves its stretch out too, so below that only the 5 s mark is sure.
    const unseen = [toFifteen, toEnd].reduce((sum, j) => sum + (j.from - j.lastRead), 0);
    const watched = playback("VIDEO_ENDED")[0]?.watch_duration ?? 0;
    expect(watched).toBeLessThanOrEqual(played - unseen + 0.01);
    expect(watched).toBeGreaterThanOrEqual(5);

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
