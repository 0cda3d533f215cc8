import type { Experiment } from "@feedlab/schemas";
import type { Page, Route } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

const PENDING = "**/api/v1/surveys/pending**";

/** What a server in trouble answers (the API's error body). */
const unavailable = (route: Route) =>
  route.fulfill({
    status: 503,
    contentType: "application/json",
    body: JSON.stringify({ error: { code: "unavailable", message: "Back in a moment." } }),
  });

describe("the survey gate fails closed when the pending check fails (Chromium)", () => {
  const suite = consoleSuite("outage-e2e", "Outage test video");
  let experiment: Experiment;

  beforeAll(async () => {
    // A running study whose participants must answer a pre survey before the feed.
    experiment = await createArmStudy(suite.api, "Survey outage study", suite.videos, "running");
    await createSurvey(suite.api, experiment.id, { kind: "pre", is_active: true });
  });

  /** A participant's tab that records whether a feed card was ever in its document. */
  async function participantPage(): Promise<Page> {
    const context = await suite.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(() => {
      const w = window as unknown as { feedSeen: boolean };
      w.feedSeen = false;
      new MutationObserver(() => {
        if (!w.feedSeen && document.querySelector('a[href^="/watch/"]')) w.feedSeen = true;
      }).observe(document, { childList: true, subtree: true });
    });
    return context.newPage();
  }

  const feedSeen = (page: Page) => page.evaluate(() => (window as unknown as { feedSeen: boolean }).feedSeen);
  const feedCards = (page: Page) => page.locator('a[href^="/watch/"]');
  /** The gate's state fades in after a moment (a fast answer shows no flash of it): wait until it has. */
  const shownFully = (page: Page) =>
    expect
      .poll(() => page.locator(".survey-gate-state").evaluate((el) => getComputedStyle(el).opacity))
      .toBe("1");

  it("shows 'Loading your study', never the feed, while the check answers 503, then the forced pre survey", async () => {
    // Given a survey endpoint that answers 503 for the first 4 s after the join link,
    const page = await participantPage();
    const answers: number[] = [];
    let since: number | null = null;
    await page.route(PENDING, async (route) => {
      since ??= Date.now();
      if (Date.now() - since < 4000) {
        answers.push(503);
        await unavailable(route);
      } else {
        answers.push(200);
        await route.continue();
      }
    });

    // when a participant joins,
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=outage-short`);
    await page.waitForURL(`${suite.app.url}/`);

    // then the page says it is loading (a status, for screen readers too) and shows no feed,
    const loading = page.getByRole("status").filter({ hasText: "Loading your study" });
    await loading.waitFor();
    await shownFully(page);
    expect(await feedCards(page).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "survey-outage-loading");

    // and once the endpoint answers again (the retries after 1, 2 and 4 s), the forced pre survey.
    const dialog = page.getByRole("dialog", { name: "Before you start" });
    await dialog.waitFor({ timeout: 20_000 });
    expect(answers.filter((a) => a === 503).length).toBeGreaterThanOrEqual(2);
    expect(answers.at(-1)).toBe(200);
    expect(await feedSeen(page)).toBe(false);
    expect(await feedCards(page).count()).toBe(0);
    expect(await loading.count()).toBe(0);
  });

  it("after the retries, says the study cannot be loaded with 'Try again', and keeps trying in the background", async () => {
    // Given a survey endpoint that keeps failing,
    const page = await participantPage();
    let down = true;
    let checks = 0;
    await page.route(PENDING, async (route) => {
      checks += 1;
      if (down) await unavailable(route);
      else await route.continue();
    });

    // when a participant joins, the first try and its retries after 1, 2, 4 and 8 s fail,
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=outage-long`);
    await page.waitForURL(`${suite.app.url}/`);
    const message = page.getByRole("status").filter({ hasText: "Your study could not be loaded" });
    await message.waitFor({ timeout: 30_000 });

    // then a plain message with a button, and still no feed.
    expect(checks).toBe(5);
    const tryAgain = page.getByRole("button", { name: "Try again" });
    await tryAgain.waitFor();
    await shownFully(page);
    expect(await feedCards(page).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "survey-outage-unreachable");

    // "Try again" asks at once; failing again, the message stays.
    const before = checks;
    const asked = page.waitForResponse((r) => r.url().includes("/api/v1/surveys/pending"));
    await tryAgain.click();
    expect((await asked).status()).toBe(503);
    await tryAgain.waitFor();
    expect(checks).toBe(before + 1);
    expect(await message.isVisible()).toBe(true);

    // Back up, the check in the background (every 10 s) finds the pre survey without a click.
    down = false;
    const dialog = page.getByRole("dialog", { name: "Before you start" });
    await dialog.waitFor({ timeout: 20_000 });
    expect(checks).toBeGreaterThan(before + 1);
    expect(await feedSeen(page)).toBe(false);
  });
});
