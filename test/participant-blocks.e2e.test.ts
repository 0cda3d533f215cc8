import type { UiTemplate } from "@feedlab/schemas";
import type { BlockNode } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { starterTree } from "@feedlab/schemas/ui/blocks/starter-tree.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import {
  createParticipantStudy,
  presetJourney,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
} from "./harness/participant.ts";

describe("a blocks template and its exported TSX give participants the same page", () => {
  const suite = e2eSuite();
  let wire: RecordingProxy;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
  });
  afterAll(async () => {
    await wire?.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const r = await suite.api.post<UiTemplate>("/api/v1/admin/ui-templates", { name: "Blocks", ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const blocks = (page: "feed" | "watch", tree: BlockNode) => create({ page, template_type: "blocks", tree });
  const exported = async (t: UiTemplate) => {
    const tsx = (await suite.api.get(`/api/v1/admin/ui-templates/${t.id}/export`)).text;
    return create({ page: t.page, template_type: "code", source: tsx });
  };
  const eventTypes = (from: number) =>
    [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))].sort();

  /** One journey through a study on these UIs: its event types, and the feed's card count. */
  async function journey(ui: { feed: string; watch: string }, loginId: string) {
    const study = await createParticipantStudy(suite.api, { ui, videoCount: 14 });
    const from = wire.batches.length;
    await presetJourney(suite.browser, wire, {
      experimentId: study.experimentId,
      loginId,
      device: "desktop",
      shots: loginId,
    });
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=${loginId}-count`);
    await page.waitForURL(`${wire.url}/`);
    const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBeGreaterThan(0);
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

  it("renders every feed block in Chromium: text, divider, tabs, a grid, and cards of every part", async () => {
    const card = ["Thumbnail", "Title", "Channel", "Views", "Published", "Tags", "Description"].map(
      (type) => ({ type }),
    );
    const gallery = await blocks("feed", {
      type: "Page",
      children: [
        { type: "Text", props: { style: "heading", text: "Every block" } },
        { type: "Text", props: { style: "note", text: "Browse as you normally would." } },
        { type: "Divider" },
        {
          type: "Tabs",
          props: { titles: "Videos, About" },
          children: [
            { type: "VideoList", props: { pageSize: 4, more: "button" }, children: card },
            {
              type: "Grid",
              props: { columns: 2 },
              children: [{ type: "Text", props: { text: "About this study." } }, { type: "Stack" }],
            },
          ],
        },
      ],
    });
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: gallery.id, watch: "grid-desktop" },
      videoCount: 6,
    });
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=blocks-gallery`);
    await page.getByRole("heading", { name: "Every block" }).waitFor();
    await page.getByText("Browse as you normally would.").waitFor();
    const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(4);
    const first = cards.first();
    expect(await first.locator("img").getAttribute("src")).toMatch(/^\/media\/demo\/.+\.jpg$/);
    await expect.poll(() => first.textContent(), { timeout: 15_000 }).toMatch(/views.*ago.*#topic-/s);
    await page.getByRole("button", { name: "Show more" }).click();
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(6);
    expect(await page.getByText("About this study.").isVisible()).toBe(false);
    await page.getByRole("tab", { name: "About" }).click();
    await page.getByText("About this study.").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("tab", { name: "Videos" }).click();
    await saveScreenshot(page, "blocks-feed-gallery");
    await context.close();
  }, 60_000);

  it("shows a two-column watch page with the player, title, likes and related videos", async () => {
    const watch = await blocks("watch", starterTree("watch"));
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: watch.id },
      videoCount: 6,
    });
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=blocks-watch`);
    await page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().click();
    await page.waitForURL(/\/watch\//);
    await page.locator("video").waitFor();
    const related = page.getByRole("list", { name: "Related videos" }).getByRole("link");
    await expect.poll(() => related.count(), { timeout: 15_000 }).toBe(5);
    await page.getByRole("heading", { level: 1 }).waitFor();
    // Two columns: the related list sits beside the player, not under it.
    const player = await page.locator("video").boundingBox();
    const list = await related.first().boundingBox();
    expect(list && player && list.x).toBeGreaterThan((player?.x ?? 0) + (player?.width ?? 0) - 1);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "blocks-watch");
    await context.close();
  }, 60_000);

  it("lets a researcher build a two-column watch page by drag and drop, preview it, save and assign it, then continue as code", async () => {
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 6,
    });
    const context = await suite.newContext({ viewport: { width: 1500, height: 1000 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Layouts" }).click();
    await page.getByRole("link", { name: "New watch layout with blocks" }).click();
    await page.getByLabel("Videos of the experiment").selectOption(study.experimentId);

    const palette = page.getByRole("region", { name: "Blocks", exact: true });
    const tree = page.getByRole("tree", { name: "Blocks of the layout" });
    const item = (type: string) => tree.getByRole("treeitem", { name: new RegExp(`^${type}`) });
    const dragOnto = (block: string, target: string) =>
      palette.getByRole("button", { name: block, exact: true }).dragTo(item(target));
    const shape = async () =>
      Promise.all(
        (await tree.getByRole("treeitem").all()).map(
          async (li) => `${await li.getAttribute("aria-level")} ${(await li.textContent())?.split(" · ")[0]}`,
        ),
      );
    // The editor names blocks in words; the identifiers (SplitColumn, VideoList) stay in the code.
    await dragOnto("Two columns", "Page");
    await dragOnto("Stack", "Two columns");
    await dragOnto("Player", "Stack");
    await dragOnto("Title", "Stack");
    await dragOnto("Like buttons", "Stack");
    await dragOnto("Video list", "Two columns");
    expect(await shape()).toEqual([
      "1 Page",
      "2 Two columns",
      "3 Stack",
      "4 Player",
      "4 Title",
      "4 Like buttons",
      "3 Video list",
    ]);

    // The keyboard does the same: the like buttons up above the title, then undone.
    await item("Like buttons").click();
    await page.keyboard.press("Alt+ArrowUp");
    expect((await shape()).slice(4, 6)).toEqual(["4 Like buttons", "4 Title"]);
    await page.keyboard.press("Control+z");
    expect((await shape()).slice(4, 6)).toEqual(["4 Title", "4 Like buttons"]);
    // What the page cannot have is refused, saying why, and the tree stays as it was.
    await dragOnto("Thumbnail", "Video list");
    expect((await shape()).at(-1)).toBe("4 Thumbnail");
    await dragOnto("Player", "Thumbnail");
    await page.getByRole("status").filter({ hasText: "Player cannot be part of a video card" }).waitFor();
    expect(await tree.getByRole("treeitem").count()).toBe(8);
    await page.getByLabel("Page", { exact: true }).selectOption("feed");
    await page.getByRole("status").filter({ hasText: "This layout cannot be a feed page" }).waitFor();
    await item("Thumbnail").click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    expect(await shape()).toEqual([
      "1 Page",
      "2 Two columns",
      "3 Stack",
      "4 Player",
      "4 Title",
      "4 Like buttons",
      "3 Video list",
    ]);

    // The list's settings: related videos, named so; the tree says so in words.
    await item("Video list").click();
    await page.getByLabel("Videos", { exact: true }).selectOption("related");
    await page.getByLabel("Heading (for screen readers when hidden)").fill("Related videos");
    await page.keyboard.press("Tab");
    await expect
      .poll(() => item("Video list").textContent(), { timeout: 15_000 })
      .toBe("Video list · Videos: related, Heading: Related videos");

    const preview = page.frameLocator('iframe[title="Preview of the layout"]');
    await preview.locator("video").waitFor({ timeout: 30_000 });
    await expect
      .poll(() => preview.getByRole("list", { name: "Related videos" }).getByRole("link").count())
      .toBe(5);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "blocks-editor");

    await page.getByLabel("Name", { exact: true }).fill("Two columns");
    await page.getByRole("button", { name: "Save layout" }).click();
    await page.waitForURL(/\/admin\/layouts\/[0-9a-f-]{36}$/);
    const templateUrl = page.url();
    await page.getByText(/^Version 1 · used by 0 arms/).waitFor();

    await page.goto(`${suite.app.url}/admin/experiments/${study.experimentId}`);
    await page.getByRole("button", { name: "Edit arm Arm" }).click();
    const dialog = page.getByRole("dialog", { name: /Arm/ });
    await dialog.getByLabel("Watch UI").selectOption({ label: "Two columns (v1)" });
    await dialog.getByRole("button", { name: "Save arm" }).click();
    await dialog.waitFor({ state: "hidden" });

    // The participant's watch page is the layout: the player, with the related videos beside it.
    const participant = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const watch = await participant.newPage();
    await watch.goto(`${suite.app.url}/join/${study.experimentId}?login_id=blocks-built-p`);
    await watch.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().click();
    await watch.waitForURL(/\/watch\//);
    await watch.locator("video").waitFor();
    const related = watch.getByRole("list", { name: "Related videos" }).getByRole("link");
    await expect.poll(() => related.count(), { timeout: 15_000 }).toBe(5);
    const player = await watch.locator("video").boundingBox();
    const first = await related.first().boundingBox();
    expect(first?.x ?? 0).toBeGreaterThan((player?.x ?? 0) + (player?.width ?? 0) - 1);
    await watch.getByRole("button", { name: "Like", exact: true }).waitFor();
    await participant.close();

    // Continue as code: a code layout with the tree's TSX opens in the code editor, and compiles.
    await page.goto(templateUrl);
    await page.getByRole("button", { name: "Continue as code" }).click();
    await page.waitForURL(
      (url) => url.href !== templateUrl && /\/admin\/layouts\/[0-9a-f-]{36}$/.test(url.href),
    );
    await page.getByRole("heading", { name: "Two columns (code)" }).waitFor();
    await page.getByRole("status").filter({ hasText: "Compiled in" }).waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.getByRole("textbox", { name: "Layout source (TSX)" }).textContent())
      .toContain('from "@feedlab/blocks"');
    await context.close();
  }, 180_000);
});
