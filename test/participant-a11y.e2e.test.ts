import type { Experiment, UiTemplate } from "@feedlab/schemas";
import { starterTree } from "@feedlab/schemas/ui/blocks/starter-tree.ts";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { allAxeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createParticipantStudy } from "./harness/participant.ts";

/** A laptop (issue 34: where a first-time researcher meets the console) and a phone. */
const WIDTHS = {
  laptop: { width: 1366, height: 850 },
  phone: { width: 390, height: 844 },
} as const;
type Width = keyof typeof WIDTHS;

/** The page passes axe and has exactly one h1; its screenshot is saved as `a11y-<name>`. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, `a11y-${name}`);
  expect(await allAxeViolations(page), name).toEqual([]);
  expect(await page.getByRole("heading", { level: 1 }).count(), `${name}: h1 count`).toBe(1);
}

describe("participant pages and the layout editors at 1366 and 390 px", () => {
  const suite = e2eSuite();

  /** A participant's new browser at the width, joined to the experiment. */
  async function join(experimentId: string, loginId: string, width: Width): Promise<Page> {
    const context = await suite.newContext({ viewport: WIDTHS[width] });
    const page = await context.newPage();
    await page.goto(`${suite.app.url}/join/${experimentId}?login_id=${loginId}`);
    await page.waitForURL(`${suite.app.url}/`);
    return page;
  }

  const leave = (page: Page) => page.getByRole("button", { name: "Leave study" });
  const cards = (page: Page) => page.getByRole("list", { name: "Recommended videos" }).getByRole("link");

  /** The feed (cards shown), then the watch page of its first card (player, title and related videos). */
  async function feedThenWatch(page: Page, name: string): Promise<void> {
    await expect.poll(() => cards(page).count(), { timeout: 15_000 }).toBeGreaterThan(2);
    await leave(page).waitFor();
    await expectAccessible(page, `${name}-feed`);
    await cards(page).first().click();
    await page.waitForURL(/\/watch\//);
    await page.locator("video").waitFor();
    await page
      .getByRole("list", { name: "Related videos" })
      .getByRole("link")
      .first()
      .waitFor({ timeout: 15_000 });
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await leave(page).waitFor();
    await expectAccessible(page, `${name}-watch`);
  }

  it.each(Object.keys(WIDTHS) as Width[])(
    "passes axe with one h1 on each preset's and the block starters' feed and watch pages, offering Leave study there (%s)",
    async (width) => {
      const device = width === "laptop" ? "desktop" : "mobile";
      const feedTemplate = await suite.api.post<UiTemplate>("/api/v1/admin/ui-templates", {
        name: `Blocks feed ${width}`,
        page: "feed",
        template_type: "blocks",
        tree: starterTree("feed"),
      });
      const watchTemplate = await suite.api.post<UiTemplate>("/api/v1/admin/ui-templates", {
        name: `Blocks watch ${width}`,
        page: "watch",
        template_type: "blocks",
        tree: starterTree("watch"),
      });
      const layouts = [
        [`grid-${device}`, `grid-${device}`, `grid-${device}`],
        [`list-${device}`, `list-${device}`, `list-${device}`],
        [`blocks-${width}`, feedTemplate.body.id, watchTemplate.body.id],
      ] as const;
      for (const [name, feed, watch] of layouts) {
        const study = await createParticipantStudy(suite.api, { ui: { feed, watch }, videoCount: 6 });
        const page = await join(study.experimentId, `${name}-${width}`, width);
        await feedThenWatch(page, `${name}-${width}`);
        await page.context().close();
      }
    },
    120_000,
  );

  it.each(Object.keys(WIDTHS) as Width[])(
    "passes axe on the consent, declined, completion and ended pages, none offering Leave study (%s)",
    async (width) => {
      const consentStudy = await createParticipantStudy(suite.api, {
        ui: { feed: "grid-desktop", watch: "grid-desktop" },
        videoCount: 3,
      });
      await suite.api.patch(`/api/v1/admin/experiments/${consentStudy.experimentId}`, {
        consent_text: "# About this study\n\nYou watch videos.\n\n## Your data\n\nWe keep what you do.",
      });
      const consent = await join(consentStudy.experimentId, `consent-${width}`, width);
      await consent.getByRole("heading", { name: "Consent to take part" }).waitFor();
      await consent.getByRole("heading", { name: "About this study", level: 2 }).waitFor();
      expect(await leave(consent).count()).toBe(0);
      await expectAccessible(consent, `consent-${width}`);
      await consent.getByRole("button", { name: "I do not agree" }).click();
      await consent.getByRole("heading", { name: "Thank you for your time" }).waitFor();
      expect(await leave(consent).count()).toBe(0);
      await expectAccessible(consent, `declined-${width}`);
      await consent.context().close();

      const finishing = await createParticipantStudy(suite.api, {
        ui: { feed: "grid-desktop", watch: "grid-desktop" },
        videoCount: 3,
      });
      await suite.api.patch(`/api/v1/admin/experiments/${finishing.experimentId}`, {
        completion: { after_sessions: 1, code: "K7M2QX9P" },
      });
      const done = await join(finishing.experimentId, `done-${width}`, width);
      await done.getByRole("heading", { name: "Thank you for taking part" }).waitFor({ timeout: 20_000 });
      await done.getByTestId("completion-code").waitFor();
      expect(await leave(done).count()).toBe(0);
      await expectAccessible(done, `completion-${width}`);
      await done.context().close();

      // A participant in the study: Leave study on the paused notice; none once the study has ended.
      const ending = await createParticipantStudy(suite.api, {
        ui: { feed: "grid-desktop", watch: "grid-desktop" },
        videoCount: 3,
      });
      const page = await join(ending.experimentId, `ended-${width}`, width);
      await leave(page).waitFor();
      await suite.api.patch(`/api/v1/admin/experiments/${ending.experimentId}`, { status: "paused" });
      await page.reload();
      await page.getByRole("heading", { name: "This study is paused" }).waitFor();
      await leave(page).waitFor();
      await expectAccessible(page, `paused-${width}`);
      await suite.api.patch(`/api/v1/admin/experiments/${ending.experimentId}`, { status: "completed" });
      await page.reload();
      await page.getByRole("heading", { name: "This study has ended" }).waitFor();
      expect(await leave(page).count()).toBe(0);
      await expectAccessible(page, `ended-${width}`);
      await page.context().close();
    },
    90_000,
  );

  it("passes axe on the 404 pages of the app and of the participant pages, whose status numbers have text contrast", async () => {
    const context = await suite.newContext({ viewport: WIDTHS.laptop });
    const page = await context.newPage();
    await page.goto(`${suite.app.url}/no-such-page`);
    await page.getByText("404").waitFor();
    await saveScreenshot(page, "a11y-404");
    expect(await allAxeViolations(page)).toEqual([]);
    await context.close();

    const study = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 1,
    });
    const participant = await join(study.experimentId, "not-found", "phone");
    await participant.goto(`${suite.app.url}/watch/00000000-0000-4000-8000-000000000000`);
    await participant.getByRole("heading", { name: "Video not found" }).waitFor();
    await expectAccessible(participant, "participant-404-phone");
    await participant.context().close();
  });

  describe("the layout editors", () => {
    let withVideos: Experiment;
    beforeAll(async () => {
      // The most recently changed experiment with videos, then a newer one with none: the preview
      // shows the first.
      const study = await createParticipantStudy(suite.api, {
        ui: { feed: "grid-desktop", watch: "grid-desktop" },
        videoCount: 4,
      });
      withVideos = (await suite.api.get<Experiment>(`/api/v1/admin/experiments/${study.experimentId}`)).body;
      await suite.api.post("/api/v1/admin/experiments", { name: "Just created, no videos yet" });
    });

    const preview = (page: Page) => page.frameLocator('iframe[title="Preview of the layout"]');

    it("moves the layouts to /admin/layouts: the nav leads there and the old /admin/templates addresses redirect", async () => {
      const context = await suite.newContext({ viewport: WIDTHS.laptop });
      const page = await context.newPage();
      await signInToConsole(page, suite.app.url);
      const nav = page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Layouts" });
      expect(await nav.getAttribute("href")).toBe("/admin/layouts");
      await page.goto(`${suite.app.url}/admin/templates`);
      await page.waitForURL(`${suite.app.url}/admin/layouts`);
      await page.getByRole("heading", { name: "Layouts", exact: true }).waitFor();
      expect(await nav.getAttribute("aria-current")).toBe("page");
      await page.goto(`${suite.app.url}/admin/templates/new?page=watch&type=blocks`);
      await page.waitForURL(`${suite.app.url}/admin/layouts/new?page=watch&type=blocks`);
      await page.getByRole("heading", { name: "New watch layout with blocks" }).waitFor();
      await context.close();
    });

    it.each(Object.keys(WIDTHS) as Width[])(
      "previews a watch layout in code with the videos of the latest experiment that has some, at a computer's width, and passes axe (%s)",
      async (width) => {
        const context = await suite.newContext({ viewport: WIDTHS[width] });
        const page = await context.newPage();
        await signInToConsole(page, suite.app.url);
        await page.goto(`${suite.app.url}/admin/layouts/new?page=watch`);
        await page.getByRole("status").filter({ hasText: "Compiled in" }).waitFor({ timeout: 30_000 });
        const choice = page.getByLabel("Videos of the experiment");
        await expect.poll(() => choice.inputValue(), { timeout: 15_000 }).toBe(withVideos.id);
        expect(await choice.locator("option:checked").textContent()).toBe(`${withVideos.name} (4 videos)`);
        await page.getByText(`The watch page with the 4 videos of “${withVideos.name}”`).waitFor();

        // The watch page renders as on a 1280 px screen, scaled to the pane: its title reads on a line
        // or two, not a word a line.
        const title = preview(page).getByRole("heading", { level: 1 });
        await title.waitFor({ timeout: 15_000 });
        expect(await title.evaluate((h) => h.getBoundingClientRect().width)).toBeGreaterThan(600);
        expect(await title.evaluate((h) => h.getBoundingClientRect().height)).toBeLessThan(80);
        const frame = await page.locator('iframe[title="Preview of the layout"]').boundingBox();
        expect(frame?.width ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(WIDTHS[width].width);
        await expectAccessible(page, `code-editor-watch-${width}`);
        await context.close();
      },
      60_000,
    );

    it.each(Object.keys(WIDTHS) as Width[])(
      "names blocks in words in the block editor, spaces its tree's settings, and passes axe (%s)",
      async (width) => {
        const context = await suite.newContext({ viewport: WIDTHS[width] });
        const page = await context.newPage();
        await signInToConsole(page, suite.app.url);
        await page.goto(`${suite.app.url}/admin/layouts/new?page=feed&type=blocks`);
        const palette = page.getByRole("region", { name: "Blocks", exact: true });
        await palette.getByRole("button", { name: "Video list", exact: true }).waitFor();
        await palette.getByRole("button", { name: "Two columns", exact: true }).waitFor();
        const tree = page.getByRole("tree", { name: "Blocks of the layout" });
        await tree.getByRole("treeitem", { name: "Page" }).click();
        await palette.getByRole("button", { name: "Video list", exact: true }).click();
        await page.getByRole("heading", { name: "Video list settings" }).waitFor();
        await page.getByLabel("Cards", { exact: true }).selectOption("list");
        await expect
          .poll(() => tree.getByRole("treeitem", { name: /^Video list/ }).textContent())
          .toBe("Video list · Cards: list");
        const text = (await page.getByRole("main").textContent()) ?? "";
        for (const identifier of ["VideoList", "SplitColumn"]) expect(text).not.toContain(identifier);
        await preview(page)
          .getByRole("list", { name: "Recommended videos" })
          .getByRole("link")
          .first()
          .waitFor({
            timeout: 30_000,
          });
        // The preview's surfaces track as a participant's would; their batches are counted, never sent.
        await expect
          .poll(() => page.getByText(/^Events the preview would send/).textContent(), { timeout: 15_000 })
          .toMatch(/\((?!0;)\d+; never stored\)/);
        await expectAccessible(page, `blocks-editor-${width}`);
        await context.close();
      },
      60_000,
    );
  });
});
