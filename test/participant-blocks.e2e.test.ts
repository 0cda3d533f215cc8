import type { UiTemplate } from "@feedlab/schemas";
import { type BlockNode, starterTree } from "@feedlab/schemas/ui/blocks.ts";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { launchBrowser, saveScreenshot } from "./harness/browser.ts";
import {
  createParticipantStudy,
  presetJourney,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
} from "./harness/participant.ts";

describe("a blocks template and its exported TSX give participants the same page", () => {
  let app: TestApp;
  let admin: Client;
  let wire: RecordingProxy;
  let browser: Browser;
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

  const create = async (body: Record<string, unknown>) => {
    const r = await admin.post<UiTemplate>("/api/v1/admin/ui-templates", { name: "Blocks", ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const blocks = (page: "feed" | "watch", tree: BlockNode) => create({ page, template_type: "blocks", tree });
  const exported = async (t: UiTemplate) => {
    const tsx = (await admin.get(`/api/v1/admin/ui-templates/${t.id}/export`)).text;
    return create({ page: t.page, template_type: "code", source: tsx });
  };
  const eventTypes = (from: number) =>
    [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))].sort();

  /** One journey through a study on these UIs: its event types, and the feed's card count. */
  async function journey(ui: { feed: string; watch: string }, loginId: string) {
    const study = await createParticipantStudy(admin, { ui, videoCount: 14 });
    const from = wire.batches.length;
    await presetJourney(browser, wire, {
      experimentId: study.experimentId,
      loginId,
      device: "desktop",
      shots: loginId,
    });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=${loginId}-count`);
    const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count()).toBeGreaterThan(0);
    await page.waitForTimeout(500);
    const count = await cards.count();
    const violations = await axeViolations(page);
    await context.close();
    return {
      types: eventTypes(from),
      count,
      violations,
      rejected: wire.batches.slice(from).flatMap((b) => b.reply?.rejected ?? []),
    };
  }

  it("renders the starter trees and their exports with the same cards and event types, tracked in full", async () => {
    const feed = await blocks("feed", starterTree("feed"));
    const watch = await blocks("watch", starterTree("watch"));
    const tree = await journey({ feed: feed.id, watch: watch.id }, "blocks-p");
    const code = await journey(
      { feed: (await exported(feed)).id, watch: (await exported(watch)).id },
      "export-p",
    );
    expect(code.count).toBe(tree.count);
    expect(code.types).toEqual(tree.types);
    for (const type of ["IMPRESSION", "FEED_CLICK", "VIDEO_PLAY", "VIDEO_WATCHED_5S", "LIKE", "PAGE_EXIT"])
      expect(tree.types).toContain(type);
    expect([...tree.rejected, ...code.rejected]).toEqual([]);
    expect(tree.violations).toEqual([]);
  }, 240_000);

  it("shows a two-column watch page with the player, title, likes and related videos", async () => {
    const watch = await blocks("watch", starterTree("watch"));
    const study = await createParticipantStudy(admin, {
      ui: { feed: "grid-desktop", watch: watch.id },
      videoCount: 6,
    });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=blocks-watch`);
    await page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().click();
    await page.waitForURL(/\/watch\//);
    await page.locator("video").waitFor();
    const related = page.getByRole("list", { name: "Related videos" }).getByRole("link");
    await expect.poll(() => related.count()).toBe(5);
    await page.getByRole("heading", { level: 1 }).waitFor();
    // Two columns: the related list sits beside the player, not under it.
    const player = await page.locator("video").boundingBox();
    const list = await related.first().boundingBox();
    expect(list && player && list.x).toBeGreaterThan((player?.x ?? 0) + (player?.width ?? 0) - 1);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "blocks-watch");
    await context.close();
  }, 60_000);
});
