import type { Experiment } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";

const PROLIFIC = "https://app.prolific.com/submissions/complete";
/**
 * The delay of the studies that count down: long enough that the checks made while the page counts
 * (axe, a screenshot, a second's wait) end before the redirect on a busy machine (3 s did not).
 */
const DELAY_S = 8;

/** api.md, "Console and exports (wave 3)": `completion.redirect_delay_s` keeps the code on screen before the redirect. */
describe("the completion page in Chromium", () => {
  const suite = consoleSuite("completion-e2e", "Completion test video");

  /** A running study whose participants finish at once (one session, no post survey). */
  async function finishingStudy(name: string, redirectDelay: number): Promise<Experiment> {
    const experiment = await createArmStudy(suite.api, name, suite.videos);
    const patched = await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      completion: {
        after_sessions: 1,
        code: "K7M2QX9P",
        redirect_url: `${PROLIFIC}?cc={code}`,
        redirect_delay_s: redirectDelay,
      },
    });
    expect(patched.status).toBe(200);
    return experiment;
  }

  /** A participant's browser whose recruiting site answers locally; `arrivals` holds when each visit came. */
  async function participant(errors: string[]) {
    const context = await suite.newContext();
    const arrivals: { url: string; at: number }[] = [];
    await context.route(`${PROLIFIC}**`, async (route) => {
      arrivals.push({ url: route.request().url(), at: Date.now() });
      await route.fulfill({ status: 200, contentType: "text/html", body: "<title>Prolific</title>" });
    });
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    return { page, arrivals };
  }

  const returnButton = (page: Page) => page.getByRole("link", { name: "Return to the study site" });
  const countdown = (page: Page) =>
    page.getByRole("status").filter({ hasText: /Returning you to the study site in \d+ s/ });

  it("keeps the code, its copy button and the Return button on screen for the delay, then redirects", async () => {
    const experiment = await finishingStudy("Counting down", DELAY_S);
    const errors: string[] = [];
    const { page, arrivals } = await participant(errors);
    // When the page first showed the code, by the page's own clock (the machine's, as the arrivals').
    await page.addInitScript(() => {
      const stamp = () => {
        const w = window as unknown as { codeShownAt?: number };
        if (w.codeShownAt === undefined && document.querySelector("[data-testid=completion-code]"))
          w.codeShownAt = Date.now();
      };
      new MutationObserver(stamp).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${suite.app.url}/join/${experiment.id}?PROLIFIC_PID=pid-3`);

    await page.getByRole("heading", { name: "Thank you for taking part" }).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("completion-code").textContent()).toBe("K7M2QX9P");
    expect(arrivals).toEqual([]);
    await page.getByRole("button", { name: "Copy the completion code" }).waitFor();
    expect(await returnButton(page).getAttribute("href")).toBe(`${PROLIFIC}?cc=K7M2QX9P`);
    await countdown(page).waitFor();
    await page.getByText(/keep this code/).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "completion-page-countdown");

    // A second later the participant is still on the page.
    await page.waitForTimeout(1000);
    expect(arrivals).toEqual([]);
    expect(await page.getByTestId("completion-code").isVisible()).toBe(true);
    // The count goes on on screen, but the status (read out by screen readers) said it once.
    expect(await countdown(page).textContent()).toContain(`Returning you to the study site in ${DELAY_S} s.`);
    const shownAt = await page.evaluate(() => (window as unknown as { codeShownAt?: number }).codeShownAt);

    // Then the redirect, never before the delay has passed since the code was on screen (the page
    // starts its count as it shows the code; the observer stamps a moment later, within a frame).
    await page.waitForURL(`${PROLIFIC}**`, { timeout: 30_000 });
    expect(arrivals.map((a) => a.url)).toEqual([`${PROLIFIC}?cc=K7M2QX9P`]);
    expect(shownAt).toBeTypeOf("number");
    expect((arrivals[0]?.at ?? 0) - (shownAt ?? Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(
      DELAY_S * 1000,
    );
    expect(errors).toEqual([]);
  });

  it("redirects as soon as the last events are stored when the delay is 0", async () => {
    const experiment = await finishingStudy("No delay", 0);
    const errors: string[] = [];
    const { page, arrivals } = await participant(errors);
    await page.goto(`${suite.app.url}/join/${experiment.id}?PROLIFIC_PID=pid-0`);
    await page.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    expect(arrivals.map((a) => a.url)).toEqual([`${PROLIFIC}?cc=K7M2QX9P`]);
    expect(errors).toEqual([]);
  });

  it("shows a finished participant who comes back the completion page again, with the Return button usable at once", async () => {
    const experiment = await finishingStudy("Coming back", DELAY_S);
    const errors: string[] = [];
    const { page, arrivals } = await participant(errors);
    await page.goto(`${suite.app.url}/join/${experiment.id}?PROLIFIC_PID=pid-back`);
    await page.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    expect(arrivals).toHaveLength(1);

    // Back on the study site (a new visit): the page again, counting down, not an instant redirect.
    await page.goto(`${suite.app.url}/`);
    await page.getByRole("heading", { name: "Thank you for taking part" }).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("completion-code").textContent()).toBe("K7M2QX9P");
    await countdown(page).waitFor();
    expect(arrivals).toHaveLength(1);

    // The Return button does not wait for the count.
    await returnButton(page).click();
    await page.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    expect(arrivals.map((a) => a.url)).toEqual([`${PROLIFIC}?cc=K7M2QX9P`, `${PROLIFIC}?cc=K7M2QX9P`]);
    expect(errors).toEqual([]);
  });
});
