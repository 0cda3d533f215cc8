import type { Group } from "@feedlab/schemas";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { launchBrowser, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { joinWithSession, sendEvents, wireEvent } from "./harness/events.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { type FakeRecommender, startFakeRecommender } from "./harness/recommender-server.ts";

/**
 * A researcher runs a study with three arms, one served by an external recommender that fails, and
 * reads the per-arm results, the completeness and the recommender health in the console, then tries
 * the recommender with the Test button.
 */
describe("results per arm in the console", () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let fake: FakeRecommender;
  let study: StudyFixture;

  beforeAll(async () => {
    app = await startTestApp("pglite");
    const admin = await app.admin();
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
    // Six participants, two per arm (balanced assignment), each with a feed page and events; the
    // first one's second batch is lost.
    for (let i = 0; i < 6; i++) {
      const p = await joinWithSession(app.client(), study.experiment.id, `p${i + 1}`);
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
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInToConsole(page, app.url);
  });
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
    await app?.stop();
  });

  it("warns on the experiment page about the arm whose recommender fails", async () => {
    await page.goto(`${app.url}/admin/experiments/${study.experiment.id}`);
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
    // p5 (ended). Arm 3: p3 (ended), p6.
    const cells = async (name: string) =>
      (await row(name).getByRole("cell").allTextContents()).map((t) => t.trim());
    const totals = await Promise.all(["Arm 1", "Arm 2", "Arm 3"].map(cells));
    expect(totals.map((c) => c.slice(0, 6))).toEqual([
      ["2", "4", "1", "1", "1", "1"],
      ["2", "4", "2", "2", "1", "1"],
      ["2", "4", "2", "2", "1", "0"],
    ]);
    expect(totals[1]?.[6]).toBe("50.0% (50.0%–50.0%)");
    // One chart per rate, drawn (SVG) and described for screen readers.
    for (const title of ["Click-through rate", "Completion rate", "Like rate"])
      await page.locator(`svg[aria-label="${title}"]`).waitFor();
    await page.locator("figure").filter({ hasText: "Over time" }).locator("svg").first().waitFor();

    const live = page.getByRole("table", { name: "Assignment and activity per arm" });
    expect(await live.getByRole("row").count()).toBe(4);
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
    await saveScreenshot(page, "results-page");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("tests the external recommender from its dialog: the failure, then what a working answer keeps", async () => {
    await page.goto(`${app.url}/admin/recommenders`);
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
