import type { Group } from "@feedlab/schemas";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { joinWithSession, sendEvents, wireEvent } from "./harness/events.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { type FakeRecommender, startFakeRecommender } from "./harness/recommender-server.ts";

/**
 * A researcher runs a study with three arms, one served by an external recommender that fails, and a
 * fourth arm, with a long name, added late and still without participants. They read the per-arm
 * results, the completeness and the recommender health in the console on a laptop (1366 x 850) and
 * a phone (390 x 844), then try the recommender with the Test button.
 */
/** The arm added after the participants joined: no data in any chart. */
const LATE_ARM = "Arm 4, added late: popularity on the feed with similarity on the watch page";
const ARMS = ["Arm 1", "Arm 2", "Arm 3", LATE_ARM];
const LAPTOP = { width: 1366, height: 850 };
const RATES = ["Click-through rate", "Completion rate", "Like rate"];
const PHONE = { width: 390, height: 844 };

/** Whether an element shows all of its text: laid out, not cut off, inside the viewport's width. */
async function fullyShown(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return (
      box.width > 0 &&
      box.height > 0 &&
      el.scrollWidth <= el.clientWidth + 1 &&
      el.scrollHeight <= el.clientHeight + 1 &&
      box.right <= document.documentElement.clientWidth
    );
  });
}

describe("results per arm in the console", () => {
  const suite = e2eSuite();
  let page: Page;
  let fake: FakeRecommender;
  let study: StudyFixture;

  beforeAll(async () => {
    const admin = suite.api;
    fake = await startFakeRecommender(() => ({ status: 503, raw: "down for maintenance" }));
    study = await createStudy(admin, {
      weights: [1, 1, 1],
      videoCount: 6,
      status: "running",
      name: "Three arms",
    });
    const registered = await admin.post("/api/v1/admin/recommenders", {
      key: "lab-service",
      kind: "external_http",
      label: "Lab service",
      config: { url: `${fake.url}/recommend` },
    });
    expect(registered.status).toBe(201);
    const third = study.groups[2] as Group;
    expect(
      (
        await admin.patch(`/api/v1/admin/groups/${third.id}`, {
          algorithm_config: { feed: "lab-service", watch: "recency" },
        })
      ).status,
    ).toBe(200);
    const second = study.groups[1] as Group;
    expect(
      (
        await admin.patch(`/api/v1/admin/groups/${second.id}`, {
          algorithm_config: { feed: "popularity", watch: "recency" },
        })
      ).status,
    ).toBe(200);
    // Six participants, two per arm (balanced assignment), each with a feed page and events; the
    // first one's second batch is lost.
    for (let i = 0; i < 6; i++) {
      const p = await joinWithSession(suite.app.client(), study.experiment.id, `p${i + 1}`);
      const feed = await p.client.get(`/feed?session_id=${p.sessionId}`);
      expect(feed.status).toBe(200);
      let seq = 0;
      const next = (type: Parameters<typeof wireEvent>[0], extra: Record<string, unknown> = {}) =>
        wireEvent(type, { seq: ++seq, ...extra });
      const batches = [
        [
          next("IMPRESSION", { payload: { context: "feed" } }),
          next("IMPRESSION", { payload: { context: "feed" } }),
        ],
        [next("FEED_CLICK"), next("VIDEO_PLAY")],
        [...(i % 2 === 0 ? [next("VIDEO_ENDED")] : []), ...(i < 2 ? [next("LIKE")] : [])],
      ];
      for (const [b, events] of batches.entries()) {
        if (i === 0 && b === 1) continue;
        if (events.length > 0) expect((await sendEvents(p, events)).body.rejected).toEqual([]);
      }
      // A trailing event after the lost batch makes its gap visible.
      if (i === 0) await sendEvents(p, [wireEvent("PAGE_LOAD", { seq: 10 })]);
    }
    const late = await admin.post(`/api/v1/admin/experiments/${study.experiment.id}/groups`, {
      name: LATE_ARM,
      weight: 1,
      algorithm_config: { feed: "popularity", watch: "similarity" },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    expect(late.status).toBe(201);
    expect(
      await suite.app.runtime.progress.waitFor(await suite.app.runtime.eventLog.position(), 15_000),
    ).toBe(true);
    page = await suite.browser.newPage({ viewport: LAPTOP });
    await signInToConsole(page, suite.app.url);
  });
  afterAll(async () => {
    await fake?.close();
  });

  /** A rate's chart on the Results page, by its title. */
  const rateChart = (title: string) =>
    page.locator("figure").filter({ has: page.locator("figcaption", { hasText: title }) });

  it("warns on the experiment page about the arm whose recommender fails", async () => {
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    const warning = page.getByRole("alert").filter({ hasText: "Arm 3" });
    await warning.waitFor();
    expect(await warning.textContent()).toContain("lab-service");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("shows counts, rates with intervals and charts per arm, monitoring, health and completeness", async () => {
    await page.getByRole("link", { name: "Results", exact: true }).click();
    await page.waitForURL(/\/results$/);
    const armsTable = page.getByRole("table", { name: "Counts and rates per arm" });
    const row = (name: string) =>
      armsTable.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
    await row("Arm 1").waitFor();
    // Arm 1: p1 (lost its click and play; ended, liked) and p4 (clicked, played). Arm 2: p2 (liked),
    // p5 (ended). Arm 3: p3 (ended), p6. Arm 4: nobody yet.
    const cells = async (name: string) =>
      (await row(name).getByRole("cell").allTextContents()).map((t) => t.trim());
    const totals = await Promise.all(ARMS.map(cells));
    expect(totals.map((c) => c.slice(0, 6))).toEqual([
      ["2", "4", "1", "1", "1", "1"],
      ["2", "4", "2", "2", "1", "1"],
      ["2", "4", "2", "2", "1", "0"],
      ["0", "0", "0", "0", "0", "0"],
    ]);
    // The rate, then its interval on a line of its own.
    expect(totals[1]?.[6]).toBe("50.0% (50.0%–50.0%)");
    expect(totals[3]?.slice(6)).toEqual(["—", "—", "—"]);

    const live = page.getByRole("table", { name: "Assignment and activity per arm" });
    expect(await live.getByRole("row").count()).toBe(5);
    await page.getByText("assignment follows the weights").waitFor();

    const health = page.getByRole("table", {
      name: "Calls, failures, empty results and latency per recommender",
    });
    const lab = health.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "lab-service" }) });
    expect((await lab.getByRole("cell").allTextContents()).slice(0, 3)).toEqual(["2", "2: http 5xx 2", "2"]);
    await page.getByRole("alert").filter({ hasText: "Arm 3: its recommender failed 2 times" }).waitFor();

    const flagged = page.getByRole("table", { name: "Participants above the loss threshold" });
    await flagged.getByRole("rowheader", { name: "p1" }).waitFor();
    expect(await flagged.getByRole("row").count()).toBe(2);
    // The fixture's client times are days before they arrived: every participant's clock is listed.
    const clocks = page.getByRole("table", { name: "Participants with a clock more than a minute off" });
    const p1Clock = clocks.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "p1" }) });
    expect(await p1Clock.getByRole("cell").nth(1).textContent()).toMatch(/^\d+(\.\d)? h behind$/);

    // Exact by default; spreadsheet safety is the researcher's explicit choice.
    const downloads = page.getByRole("region", { name: "Downloads" });
    const csv = downloads.getByRole("link", { name: "CSV" }).first();
    expect(await csv.getAttribute("href")).not.toContain("spreadsheet_safe");
    await downloads.getByRole("checkbox", { name: /For Excel/ }).check();
    expect(await csv.getAttribute("href")).toContain("spreadsheet_safe=true");
  });

  it("fits the arms' table on a 1366 px screen, like rate included, without scrolling sideways", async () => {
    const region = page.getByRole("region", { name: "Counts and rates per arm" });
    await region.getByRole("rowheader", { name: LATE_ARM }).waitFor();
    const fit = await region.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    // Nothing to scroll, so the region is no tab stop.
    expect(await region.getAttribute("tabindex")).toBeNull();
    const likeRate = region.getByRole("columnheader", { name: "Like rate" });
    expect(await fullyShown(likeRate)).toBe(true);
    expect(await fullyShown(region.getByRole("rowheader", { name: LATE_ARM }))).toBe(true);
  });

  it("names every arm in full in each rate chart, and says in words which arm has no data yet", async () => {
    const charts = {
      "Click-through rate": `No impressions yet in ${LATE_ARM}`,
      "Completion rate": `No plays yet in ${LATE_ARM}`,
      "Like rate": `No plays yet in ${LATE_ARM}`,
    };
    for (const [title, none] of Object.entries(charts)) {
      const chart = rateChart(title);
      for (const arm of ARMS) {
        const label = chart.locator(".arm").filter({ hasText: arm });
        expect(await label.count(), `${title}: ${arm}`).toBe(1);
        expect(await fullyShown(label), `${title}: ${arm} shown in full`).toBe(true);
        // Text at a size a researcher reads without zooming.
        const size = await label.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
        expect(size).toBeGreaterThanOrEqual(13);
      }
      await chart.getByText(none, { exact: true }).waitFor();
    }
    // Over time: every arm in the legend, the late one with nothing yet.
    const overTime = page.locator("figure").filter({ hasText: "Over time" });
    await overTime.locator("svg").first().waitFor();
    await overTime
      .getByRole("listitem")
      .filter({ hasText: `${LATE_ARM}: no participants yet` })
      .waitFor();
    await overTime.getByLabel("Show").selectOption("plays");
    await overTime
      .getByRole("listitem")
      .filter({ hasText: `${LATE_ARM}: no plays yet` })
      .waitFor();
    await overTime.getByRole("listitem").filter({ hasText: "Arm 2: 2" }).waitFor();
    const tick = await overTime
      .locator("svg [aria-label='y-axis tick label'] text")
      .first()
      .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
    expect(tick).toBeGreaterThanOrEqual(12);
  });

  it("explains beside the per-recommender table that plays count for the watch page, with the feed's clicks", async () => {
    await page.getByText(/so a feed recommender\s+shows 0 plays/).waitFor();
    const table = page.getByRole("table", { name: "Counts and rates per recommender and page" });
    const headers = (await table.getByRole("columnheader").allTextContents()).map((t) => t.trim());
    expect(headers).toContain("Feed clicks that opened a video");
    const feedRow = table
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "popularity" }) })
      .filter({ has: page.getByRole("cell", { name: "Feed", exact: true }) });
    const at = (name: string) => headers.indexOf(name) - 1; // cells after the row header
    const popularity = (await feedRow.getByRole("cell").allTextContents()).map((t) => t.trim());
    // Arm 2's two feed clicks, credited to its feed recommender; their plays count for the watch page.
    expect(popularity[at("Feed clicks that opened a video")]).toBe("2");
    expect(popularity[at("Plays")]).toBe("0");
    const what = page.getByRole("definition").filter({ hasText: "not the view counts participants see" });
    await what.waitFor();
    await saveScreenshot(page, "results-page-1366");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("lets keyboard users scroll the tables on a phone, and passes axe at 390 px", async () => {
    await page.setViewportSize(PHONE);
    const region = page.getByRole("region", { name: "Counts and rates per arm" });
    // Wider than a phone: the region scrolls and becomes a tab stop.
    await page.locator('[role="region"][data-scrolls="true"][tabindex="0"]').first().waitFor();
    await expect.poll(() => region.getAttribute("tabindex")).toBe("0");
    await region.focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    for (const title of RATES) {
      const chart = rateChart(title);
      for (const arm of ARMS)
        expect(await fullyShown(chart.locator(".arm").filter({ hasText: arm })), `${title}: ${arm}`).toBe(
          true,
        );
    }
    // Only the tables scroll sideways, never the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await saveScreenshot(page, "results-page-390");
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize(LAPTOP);
  });

  it("says in one line what the chosen recommender does when an arm's algorithm is edited", async () => {
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    await page.getByRole("button", { name: "Edit algorithm of Arm 2", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: /Edit algorithm/ });
    const feed = dialog.getByLabel("Feed algorithm");
    await expect.poll(() => feed.inputValue()).toBe("popularity");
    // The line under the list describes the list (aria-describedby), so a screen reader reads it too.
    const described = async () => {
      const ids = (await feed.getAttribute("aria-describedby")) ?? "";
      return (await Promise.all(ids.split(" ").map((id) => page.locator(`#${id}`).textContent()))).join(" ");
    };
    await expect
      .poll(described)
      .toMatch(/^Most played in this study first .*not the view counts participants see/);
    await feed.selectOption("random");
    await expect.poll(described).toMatch(/^A random order, fixed for each participant's session/);
    await dialog.getByText("What the built-in recommenders do").click();
    for (const key of ["random", "popularity", "recency", "similarity", "learned_model"])
      await dialog.getByRole("term").filter({ hasText: key }).waitFor();
    await saveScreenshot(page, "results-algorithm-dialog");
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
  });

  it("tests the external recommender from its dialog: the failure, then what a working answer keeps", async () => {
    await page.goto(`${suite.app.url}/admin/recommenders`);
    await page
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "lab-service" }) })
      .getByRole("button", { name: /^Edit/ })
      .click();
    const dialog = page.getByRole("dialog", { name: "Edit recommender “lab-service”" });
    await dialog.getByLabel("Experiment").selectOption({ label: "Three arms" });
    await dialog.getByRole("button", { name: "Test", exact: true }).click();
    await dialog.getByText("It failed.").waitFor();
    await dialog.getByText("server error (5xx)").waitFor();

    const ids = study.videos.map((v) => v.id);
    fake.setBehaviour(() => ({ json: { video_ids: [ids[0], "not-a-uuid", crypto.randomUUID(), ids[1]] } }));
    await dialog.getByRole("button", { name: "Test", exact: true }).click();
    await dialog.getByText("It works.").waitFor();
    await dialog
      .getByText("4 ids returned · 2 kept · dropped: 1 not a video UUID, 1 not in the pool")
      .waitFor();
    await dialog.getByText(/The pool's video ids \(6\)/).click();
    await dialog.getByText(ids[5] as string).waitFor();
    await saveScreenshot(page, "recommender-test");
    expect(await axeViolations(page, "dialog")).toEqual([]);
  });
});
