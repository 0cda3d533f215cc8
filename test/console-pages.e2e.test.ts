import type { AdminSurvey, Video } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../api/src/db/release.ts";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { addDemoVideos, createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

/** A laptop a first-time researcher uses, and a phone (issue 34). */
const VIEWPORTS = {
  laptop: { width: 1366, height: 850 },
  phone: { width: 390, height: 844 },
} as const;
type Viewport = keyof typeof VIEWPORTS;

/** What a table scrolling sideways looks like: the element, and how much wider its content is. */
interface Overflow {
  readonly element: string;
  readonly scrollWidth: number;
  readonly clientWidth: number;
}

/**
 * The elements that hold a table (the table's ancestors, up to the page itself) and are wider inside
 * than out: each one scrolls sideways, or lets the table spill over.
 */
function tableOverflows(page: Page): Promise<Overflow[]> {
  return page.evaluate(() => {
    const seen = new Set<Element>();
    const found: { element: string; scrollWidth: number; clientWidth: number }[] = [];
    for (const table of document.querySelectorAll("table")) {
      for (let e: Element | null = table.parentElement; e; e = e.parentElement) {
        if (seen.has(e)) continue;
        seen.add(e);
        if (e.scrollWidth > e.clientWidth + 1) {
          const label = e.getAttribute("aria-label");
          found.push({
            element: `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(" ")[0]}` : ""}${label ? ` "${label}"` : ""}`,
            scrollWidth: e.scrollWidth,
            clientWidth: e.clientWidth,
          });
        }
      }
    }
    return found;
  });
}

/** The containers that do scroll sideways (overflow-x auto or scroll), with what makes them reachable. */
function scrollingContainers(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("main *")]
      .filter((e) => {
        const x = getComputedStyle(e).overflowX;
        return (x === "auto" || x === "scroll") && e.scrollWidth > e.clientWidth + 1;
      })
      .map((e) => ({
        tabindex: e.getAttribute("tabindex"),
        role: e.getAttribute("role"),
        label: e.getAttribute("aria-label"),
      })),
  );
}

describe("the console's lists and survey editor at a laptop's and a phone's width", () => {
  const suite = e2eSuite();
  let study: StudyFixture;
  let survey: AdminSurvey;
  const signedIn = {} as Record<Viewport, Page>;

  beforeAll(async () => {
    // What a library looks like after a pilot: long names, long descriptions, long external ids.
    study = await createStudy(suite.api, {
      weights: [1, 1],
      name: "Feed ranking pilot: recency against a learned model, spring cohort",
    });
    await suite.api.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      description:
        "Participants recruited on Prolific watch a feed of cooking and travel videos for ten minutes; one arm ranks by recency and the other by the learned model, and we compare completion rates between the arms.",
    });
    await suite.api.post("/api/v1/admin/experiments", {
      name: "Autoplay on the watch page",
      description: "Does autoplay of the next related video change how long people stay?",
    });
    await addDemoVideos(
      suite.api,
      "console-pages-imported-from-the-spring-pilot-spreadsheet",
      "How to bake a sourdough loaf at home, step by step, for complete beginners",
    );
    const added = await suite.api.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [
        {
          external_id: "youtube-dQw4w9WgXcQ-imported-from-the-2026-pilot-spreadsheet",
          url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
          title: "A music video with a title long enough to need two lines in the library table",
          channel_name: "A channel with a rather long name, as channels have",
          duration_seconds: 213,
        },
        {
          external_id: "article-page",
          url: "https://example.org/articles/how-to-plant-garlic.html",
          title: "A page no player plays",
        },
      ],
    });
    expect(added.status).toBe(201);

    // A registered service with a long address that an arm uses.
    const registered = await suite.api.post("/api/v1/admin/recommenders", {
      key: "lab-ranker-spring-pilot",
      kind: "external_http",
      label: "Lab ranker (spring pilot)",
      description: "The lab's own ranking service, trained on last year's sessions.",
      category: "External",
      config: { url: "http://127.0.0.1:9/recommend/spring-pilot/feed-ranking/v2/with/a/long/path" },
    });
    expect(registered.status).toBe(201);
    await suite.api.patch(`/api/v1/admin/groups/${study.groups[0]?.id}`, {
      algorithm_config: { feed: "lab-ranker-spring-pilot", watch: "recency" },
    });
    survey = await createSurvey(suite.api, study.experiment.id, {
      kind: "pre",
      name: "Baseline questionnaire",
    });

    for (const viewport of Object.keys(VIEWPORTS) as Viewport[]) {
      const context = await suite.newContext({ viewport: VIEWPORTS[viewport] });
      signedIn[viewport] = await context.newPage();
      await signInToConsole(signedIn[viewport], suite.app.url);
    }
  });

  /** The console's pages of this issue, each opened and ready (its list or form on screen). */
  const consolePages: { name: string; open: (page: Page) => Promise<void> }[] = [
    {
      name: "experiments",
      open: async (page) => {
        await page.goto(`${suite.app.url}/admin`);
        await page.getByRole("link", { name: "Autoplay on the watch page" }).waitFor();
      },
    },
    {
      name: "videos",
      open: async (page) => {
        await page.goto(`${suite.app.url}/admin/videos`);
        await page.getByRole("link", { name: /A page no player plays/ }).waitFor();
      },
    },
    {
      name: "recommenders",
      open: async (page) => {
        await page.goto(`${suite.app.url}/admin/recommenders`);
        await page.getByRole("rowheader", { name: "lab-ranker-spring-pilot" }).waitFor();
      },
    },
    {
      name: "survey-new",
      open: async (page) => {
        await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/surveys/new`);
        await page.getByRole("group", { name: "Question 1" }).waitFor();
      },
    },
    {
      name: "survey-edit",
      open: async (page) => {
        await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/surveys/${survey.id}`);
        await page.getByRole("group", { name: "Question 1" }).waitFor();
      },
    },
  ];
  const lists = consolePages.filter((p) => ["experiments", "videos", "recommenders"].includes(p.name));

  it("opens the new experiment's page when an experiment is created on the experiments list", async () => {
    const page = signedIn.laptop;
    await page.goto(`${suite.app.url}/admin`);
    await page.getByLabel("Name").fill("Thumbnail size study");
    await page.getByLabel("Description").fill("Large against small thumbnails.");
    await page.getByRole("button", { name: "Create experiment" }).click();

    await page.waitForURL(/\/admin\/experiments\/[0-9a-f-]{36}$/);
    await page.getByRole("heading", { level: 1, name: "Thumbnail size study" }).waitFor();
    // The release the server runs, at the foot of every console page.
    await page.getByRole("contentinfo").getByText(`Feedlab ${VERSION}`).waitFor();
    const id = page.url().split("/").pop() ?? "";
    expect((await suite.api.get<{ name: string }>(`/api/v1/admin/experiments/${id}`)).body.name).toBe(
      "Thumbnail size study",
    );
    await saveScreenshot(page, "console-pages-created-experiment");
  });

  it("fits the experiments, videos and recommenders lists at 1366 px with no table scrolling sideways", async () => {
    const page = signedIn.laptop;
    for (const { name, open } of lists) {
      await open(page);
      await saveScreenshot(page, `console-pages-${name}-1366`);
      expect({ page: name, overflows: await tableOverflows(page) }).toEqual({ page: name, overflows: [] });
    }
  });

  it("joins a video's channel and external id with spaces around the dot on the videos page", async () => {
    const page = signedIn.laptop;
    await consolePages[1]?.open(page);
    const row = page.getByRole("row", { name: /A music video with a title long enough/ });
    expect(await row.getByRole("cell").nth(1).textContent()).toContain(
      "A channel with a rather long name, as channels have · youtube-dQw4w9WgXcQ",
    );
  });

  it("keeps the page from scrolling sideways at 390 px and makes each table that does a focusable, named region", async () => {
    const page = signedIn.phone;
    let scrolling = 0;
    for (const { name, open } of lists) {
      await open(page);
      await saveScreenshot(page, `console-pages-${name}-390`);
      // The page itself never scrolls sideways: only a table does, inside its region.
      expect({
        page: name,
        width: await page.evaluate(() => document.documentElement.scrollWidth),
      }).toEqual({ page: name, width: VIEWPORTS.phone.width });
      const containers = await scrollingContainers(page);
      scrolling += containers.length;
      for (const c of containers) {
        expect({ page: name, ...c }).toEqual({
          page: name,
          tabindex: "0",
          role: "region",
          label: expect.stringMatching(/\S/),
        });
      }
    }
    // The videos table, at least, is wider than a phone: the check above did check something.
    expect(scrolling).toBeGreaterThan(0);
  });

  it("folds the console's navigation under a Menu button at 390 px, so the header takes one row", async () => {
    const page = signedIn.phone;
    await consolePages[0]?.open(page);
    const header = page.getByRole("banner");
    const nav = page.getByRole("navigation", { name: "Admin" });
    expect(await nav.isVisible()).toBe(false);
    expect((await header.boundingBox())?.height).toBeLessThan(64);
    await saveScreenshot(page, "console-pages-menu-closed-390");

    // The menu opens under the header, passes axe, and leads to a page, folding again there.
    const menu = header.getByRole("button", { name: "Menu" });
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await header.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "console-pages-menu-open-390");
    await nav.getByRole("link", { name: "Videos" }).click();
    await page.waitForURL(`${suite.app.url}/admin/videos`);
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await menu.getAttribute("aria-expanded")).toBe("false");

    // Escape folds it too, and gives the focus back to the button.
    await menu.click();
    await nav.waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await menu.evaluate((e) => e === document.activeElement)).toBe(true);

    // At a laptop's width the navigation shows in the header, with no Menu button.
    await consolePages[0]?.open(signedIn.laptop);
    expect(await signedIn.laptop.getByRole("navigation", { name: "Admin" }).isVisible()).toBe(true);
    expect(await signedIn.laptop.getByRole("button", { name: "Menu" }).isVisible()).toBe(false);
  });

  it("says at import, and in the pool, how many videos have no view count (their cards show no views)", async () => {
    const page = signedIn.laptop;
    await consolePages[1]?.open(page);
    const form = page.getByRole("region", { name: "Import videos" });
    await form.getByLabel("CSV or JSON file").setInputFiles({
      name: "no-counts.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(
        "external_id,url,title,view_count\n" +
          "no-count-1,https://cdn.example.org/n1.mp4,Counted nowhere 1,\n" +
          "no-count-2,https://cdn.example.org/n2.mp4,Counted nowhere 2,\n" +
          "counted,https://cdn.example.org/c.mp4,Counted,120\n",
      ),
    });
    await form.getByRole("button", { name: "Import videos" }).click();
    await form.getByText("3 imported, 0 updated, 0 rejected").waitFor();
    await form
      .getByText("2 new videos have no view count, so participants’ cards show no views for them.")
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "console-pages-import-no-views");

    // The experiment's pool: the long-titled video without a count is in it.
    const noCount = (await suite.api.get<Video[]>("/api/v1/admin/videos")).body.filter(
      (v) => v.view_count === null,
    );
    await suite.api.put(`/api/v1/admin/experiments/${study.experiment.id}/videos`, {
      video_ids: [...study.videos.map((v) => v.id), ...noCount.slice(0, 1).map((v) => v.id)],
    });
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    const pool = page.getByRole("region", { name: "Video pool" });
    await pool
      .getByText("1 of the selected videos has no view count: participants’ cards show no views for it.")
      .waitFor();
  });

  it("finds no axe violations on the login, list and survey pages at 1366x850 and 390x844", async () => {
    for (const viewport of Object.keys(VIEWPORTS) as Viewport[]) {
      const signedOut = await suite.newContext({ viewport: VIEWPORTS[viewport] });
      const login = await signedOut.newPage();
      await login.goto(`${suite.app.url}/admin/login`);
      await login.getByRole("button", { name: "Sign in" }).waitFor();
      await saveScreenshot(login, `console-pages-login-${viewport}`);
      expect({ page: "login", viewport, violations: await axeViolations(login) }).toEqual({
        page: "login",
        viewport,
        violations: [],
      });

      const page = signedIn[viewport];
      for (const { name, open } of consolePages) {
        await open(page);
        if (name.startsWith("survey")) await saveScreenshot(page, `console-pages-${name}-${viewport}`);
        expect({ page: name, viewport, violations: await axeViolations(page) }).toEqual({
          page: name,
          viewport,
          violations: [],
        });
      }
    }
  });

  it("shows a survey question's error right under its field, marked invalid and linked by aria-describedby", async () => {
    for (const viewport of Object.keys(VIEWPORTS) as Viewport[]) {
      const page = signedIn[viewport];
      await consolePages[3]?.open(page);
      await page.getByLabel("Name", { exact: true }).fill("Devices");
      const q1 = page.getByRole("group", { name: "Question 1" });
      await q1.getByLabel("Question text").fill("Which devices do you use?");
      await q1.getByLabel("Type").selectOption("multi");
      await q1.getByLabel("Option 1 text").fill("Phone");
      await q1.getByLabel("Minimum selections").fill("3");
      await page.getByRole("button", { name: "Add question" }).click();
      const q2 = page.getByRole("group", { name: "Question 2" });
      await q2.getByLabel("Question text").fill("How was it?");
      await page.getByRole("button", { name: "Save survey" }).click();

      // Question 1: the minimum is the invalid field; its error is the next thing under it.
      const minimum = q1.getByLabel("Minimum selections");
      await expect.poll(() => minimum.getAttribute("aria-invalid")).toBe("true");
      const described = (await minimum.getAttribute("aria-describedby")) ?? "";
      const error = page.locator(`[id="${described}"]`);
      expect(await error.textContent()).toBe("Minimum selections cannot be more than the number of options.");
      expect(await minimum.evaluate((input, id) => input.nextElementSibling?.id === id, described)).toBe(
        true,
      );
      // Focus went to it, the first field a problem is about, on screen below the sticky header.
      expect(await minimum.evaluate((input) => document.activeElement === input)).toBe(true);
      const header = (await page.locator("header").first().boundingBox()) ?? { y: 0, height: 0 };
      const field = (await minimum.boundingBox()) ?? { y: 0, height: 0 };
      expect(field.y).toBeGreaterThan(header.y + header.height);
      expect(field.y + field.height).toBeLessThan(VIEWPORTS[viewport].height);

      // Question 2: option 1 has no text; the error sits under that option's row, not at the card's end.
      const option = q2.getByLabel("Option 1 text");
      expect(await option.getAttribute("aria-invalid")).toBe("true");
      const optionError = page.locator(`[id="${(await option.getAttribute("aria-describedby")) ?? ""}"]`);
      expect(await optionError.textContent()).toBe("Write the text of option 1.");
      const box = async (l: typeof option) => (await l.boundingBox()) ?? { y: 0, height: 0 };
      const fieldBottom = await box(option).then((b) => b.y + b.height);
      const errorTop = (await box(optionError)).y;
      const addTop = (await box(q2.getByRole("button", { name: "Add option" }))).y;
      expect(errorTop).toBeGreaterThan(fieldBottom);
      expect(errorTop).toBeLessThan(addTop);
      // Fields without a problem are not marked.
      expect(await q2.getByLabel("Question text").getAttribute("aria-invalid")).toBeNull();

      await saveScreenshot(page, `console-pages-survey-errors-${viewport}`);
      expect({ viewport, violations: await axeViolations(page) }).toEqual({ viewport, violations: [] });

      // Fixing the field clears its mark and its message.
      await minimum.fill("1");
      await expect.poll(() => minimum.getAttribute("aria-invalid")).toBeNull();
      expect(await error.count()).toBe(0);
    }
  });
});
