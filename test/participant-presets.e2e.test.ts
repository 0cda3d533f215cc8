import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "./harness/app.ts";
import { launchBrowser, saveScreenshot } from "./harness/browser.ts";
import {
  createParticipantStudy,
  deviceOf,
  PRESETS,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
  wander,
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
  let app: TestApp;
  let admin: Client;
  let wire: RecordingProxy;
  let browser: Browser;
  const seen = new Map<string, string[]>();
  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
    wire = await startRecordingProxy(app.url);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await wire?.close();
    await app?.stop();
  });

  it("lists the six presets as api.md pins them", async () => {
    const r = await admin.get<{ key: string; style: string; device: string }[]>("/api/v1/admin/ui-presets");
    expect(r.body.map((p) => p.key).sort()).toEqual([...PRESETS].sort());
    for (const p of r.body) expect(p.key).toBe(`${p.style}-${p.device}`);
  });

  it.each(PRESETS)(
    "%s: join, feed, scroll, hover, click, watch 6 s, like, back",
    async (preset) => {
      const study = await createParticipantStudy(admin, {
        ui: { feed: preset, watch: preset },
        videoCount: 14,
      });
      const device = deviceOf(preset);
      const context = await browser.newContext({ viewport: VIEWPORTS[device] });
      const page = await context.newPage();
      await page.route("**/media/demo/*.webm", async (route) => {
        await new Promise((r) => setTimeout(r, 400));
        await route.continue();
      });
      const from = wire.batches.length;

      await page.goto(`${wire.url}/join/${study.experimentId}?login_id=${preset}-p`);
      await page.waitForURL(`${wire.url}/`);
      const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
      await expect.poll(() => cards.count()).toBeGreaterThanOrEqual(12);
      await page.waitForTimeout(1200);
      await saveScreenshot(page, `preset-${preset}-feed`);
      await wander(page, 2500, { width: VIEWPORTS[device].width, height: VIEWPORTS[device].height });
      await page.mouse.wheel(0, 900);
      await page.waitForTimeout(600);
      await page.mouse.wheel(0, -900);
      await page.waitForTimeout(600);
      await cards.nth(1).hover();
      await page.waitForTimeout(500);
      const href = (await cards.nth(1).getAttribute("href")) ?? "";
      expect(href).toMatch(/^\/watch\/[0-9a-f-]{36}$/);
      await cards.nth(1).click();
      await page.waitForURL(`${wire.url}${href}`);

      const player = page.locator("video");
      await expect
        .poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 })
        .toBeGreaterThan(6.1);
      await page.keyboard.press("k");
      await page.waitForTimeout(300);
      await page.keyboard.press("k");
      const like = page.getByRole("button", { name: "Like", exact: true });
      await like.click();
      await expect.poll(() => like.getAttribute("aria-pressed")).toBe("true");
      await expect(page.getByRole("button", { name: "Dislike", exact: true }).count()).resolves.toBe(1);
      await page.getByRole("list", { name: "Related videos" }).getByRole("link").first().waitFor();
      await page.waitForTimeout(800);
      await saveScreenshot(page, `preset-${preset}-watch`);
      await page.goBack();
      await page.waitForURL(`${wire.url}/`);
      await expect.poll(() => cards.count()).toBeGreaterThan(0);
      const ids = await cards.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
      expect(ids).not.toContain(href);
      await page.waitForTimeout(2500);
      await context.close();

      const types = [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))];
      seen.set(preset, types.sort());
      expect(JOURNEY_TYPES.filter((t) => !types.includes(t))).toEqual([]);
      expect(wire.batches.slice(from).flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);
    },
    120_000,
  );

  it("none: the feed is bypassed to the first video, which plays in the bare player", async () => {
    const study = await createParticipantStudy(admin, { ui: { feed: "none", watch: "none" }, videoCount: 4 });
    const newest = [...study.videos].sort((a, b) =>
      (b.published_at ?? "").localeCompare(a.published_at ?? ""),
    )[0];
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
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
