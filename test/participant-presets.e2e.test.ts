import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import {
  createParticipantStudy,
  deviceOf,
  PRESETS,
  presetJourney,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
} from "./harness/participant.ts";

/** What the same journey emits, whichever preset renders it. */
const JOURNEY_TYPES = [
  "SESSION_START",
  "PAGE_LOAD",
  "HOME_FEED",
  "IMPRESSION",
  "VIEWPORT_VISIBILITY",
  "MOUSE_MOVEMENT",
  "SCROLL",
  "THUMBNAIL_HOVER",
  "FEED_CLICK",
  "NAVIGATION",
  "PAGE_EXIT",
  "VIDEO_META_CAPTURED",
  "RECOMMENDATIONS",
  "VIDEO_BUFFERING",
  "VIDEO_PLAY",
  "VIDEO_WATCHED_1S",
  "VIDEO_PROGRESS",
  "VIDEO_WATCHED_5S",
  "KEYBOARD_SHORTCUT",
  "VIDEO_PAUSE",
  "LIKE",
];

describe("the six bundled presets render and emit the same events for the same journey", () => {
  const suite = e2eSuite();
  let wire: RecordingProxy;
  const seen = new Map<string, string[]>();
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
  });
  afterAll(async () => {
    await wire?.close();
  });

  it("lists the six presets as api.md pins them", async () => {
    const r =
      await suite.api.get<{ key: string; style: string; device: string }[]>("/api/v1/admin/ui-presets");
    expect(r.body.map((p) => p.key).sort()).toEqual([...PRESETS].sort());
    for (const p of r.body) expect(p.key).toBe(`${p.style}-${p.device}`);
  });

  it.each(PRESETS)(
    "%s: join, feed, scroll, hover, click, watch 6 s, like, back",
    async (preset) => {
      const study = await createParticipantStudy(suite.api, {
        ui: { feed: preset, watch: preset },
        videoCount: 14,
      });
      const device = deviceOf(preset);
      const from = wire.batches.length;
      await presetJourney(suite.browser, wire, {
        experimentId: study.experimentId,
        loginId: `${preset}-p`,
        device,
        shots: `preset-${preset}`,
      });
      const types = [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))];
      seen.set(preset, types.sort());
      expect(JOURNEY_TYPES.filter((t) => !types.includes(t))).toEqual([]);
      expect(wire.batches.slice(from).flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);
    },
    120_000,
  );

  it("none: the feed is bypassed to the first video, which plays in the bare player", async () => {
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: "none", watch: "none" },
      videoCount: 4,
    });
    const newest = [...study.videos].sort((a, b) =>
      (b.published_at ?? "").localeCompare(a.published_at ?? ""),
    )[0];
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const from = wire.batches.length;
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=none-p`);
    await page.waitForURL(`${wire.url}/watch/${newest?.id}`);
    await page.locator("video").waitFor();
    expect(await page.getByRole("list", { name: "Related videos" }).count()).toBe(0);
    await page.locator("video").evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect
      .poll(() => page.locator("video").evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 })
      .toBeGreaterThan(1.2);
    await saveScreenshot(page, "preset-none-watch");
    await page.goto("about:blank");
    await expect
      .poll(() => wire.batches.slice(from).some((b) => b.events.some((e) => e.event_type === "SESSION_END")))
      .toBe(true);
    await context.close();
    const events = wire.batches.slice(from).flatMap((b) => b.events);
    expect(events.find((e) => e.event_type === "SESSION_START")?.payload.initialPageType).toBe("watch");
    expect(events.find((e) => e.event_type === "PAGE_LOAD")?.payload.pageType).toBe("watch");
    expect(events.filter((e) => e.event_type === "VIDEO_WATCHED_1S").map((e) => e.video_id)).toEqual([
      newest?.external_id,
    ]);
  }, 60_000);

  it("emits the same event types under every preset", () => {
    expect(seen.size).toBe(PRESETS.length);
    const core = (types: string[]) => types.filter((t) => JOURNEY_TYPES.includes(t));
    const reference = core(seen.get("grid-desktop") ?? []);
    for (const [preset, types] of seen) expect(core(types), preset).toEqual(reference);
  });
});
