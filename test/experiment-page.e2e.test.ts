import { join } from "node:path";
import { EXAMPLE_PAYLOADS, type Experiment } from "@feedlab/schemas";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { resultsDir, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { type Joined, joinWithSession, sendEvents, wireEvent } from "./harness/events.ts";
import { createStudy } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

/** The screen a first-time researcher has (issue 34), and a phone. */
const DESKTOP = { width: 1366, height: 850 };
const PHONE = { width: 390, height: 844 };

/** Every control on screen that `box` covers, as "tag: text" (the toasts' own buttons left out). */
async function controlsUnder(page: Page, box: { x: number; y: number; width: number; height: number }) {
  return page.evaluate((b) => {
    const covered: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("button, a[href], input, select, textarea")) {
      if (el.closest('[aria-label="Notifications"]')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > window.innerHeight) continue;
      const overlaps = r.left < b.x + b.width && r.right > b.x && r.top < b.y + b.height && r.bottom > b.y;
      if (overlaps)
        covered.push(
          `${el.tagName.toLowerCase()}: ${el.textContent?.trim() || el.getAttribute("aria-label") || ""}`,
        );
    }
    return covered;
  }, box);
}

/** Tables on the page that scroll sideways inside their wrapper (or push the page wider). */
async function tablesScrollingSideways(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("table")].flatMap((table) => {
      const wrap = table.parentElement as HTMLElement;
      const section = table.closest("section")?.querySelector("h2, h3")?.textContent?.trim();
      return wrap.scrollWidth > wrap.clientWidth + 1 ||
        table.getBoundingClientRect().right > window.innerWidth
        ? [`${section}: ${wrap.scrollWidth} > ${wrap.clientWidth}`]
        : [];
    }),
  );
}

describe("the experiment page as a first-time researcher meets it (Chromium)", () => {
  const suite = consoleSuite("page-e2e", "Page test video");

  async function consolePage(viewport: { width: number; height: number }): Promise<Page> {
    const context = await suite.newContext({ viewport });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    return page;
  }

  const newExperiment = async (name: string) =>
    (await suite.api.post<Experiment>("/api/v1/admin/experiments", { name })).body;

  it("updates the checklist after each save on the page without a reload, warns of inactive surveys, and starts with one", async () => {
    const experiment = await newExperiment("First study");
    await createSurvey(suite.api, experiment.id, { kind: "post", name: "Exit questions" });
    await createSurvey(suite.api, experiment.id, { kind: "pre", name: "Background" });
    const page = await consolePage(DESKTOP);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    // Any navigation would reset this marker: every change below happens on the same page load.
    await page.evaluate(() => Object.assign(window, { samePageLoad: true }));

    const status = page.getByRole("region", { name: "Status" });
    const checklist = status.getByRole("group", { name: "Before you start" });
    const items = () => checklist.getByRole("listitem").allTextContents();
    const missing = async () => (await items()).filter((t) => t.includes("Missing:")).map((t) => t.trim());
    const warnings = async () => (await items()).filter((t) => t.includes("Warning:")).map((t) => t.trim());
    const badge = page.locator(".title-row .badge");
    await checklist.getByText("Add at least one arm").waitFor();
    expect(await missing()).toEqual([
      expect.stringContaining("Add at least one arm"),
      expect.stringContaining("Add videos to the pool"),
    ]);
    // New surveys start inactive: said as a warning, in the order participants meet them.
    expect(await warnings()).toEqual([
      expect.stringMatching(/pre-study survey “Background” is inactive, so participants will not see it/),
      expect.stringMatching(/post-study survey “Exit questions” is inactive/),
    ]);
    // The settings no longer hold the status: it changes only with its own buttons.
    expect(await page.getByRole("combobox", { name: "Status" }).count()).toBe(0);
    expect(await status.getByRole("button").allTextContents()).toEqual(["Start the study"]);
    await saveScreenshot(page, "experiment-page-checklist-new");

    // Each item links to the section that fixes it.
    const fixes = checklist.getByRole("listitem");
    expect(
      await fixes.filter({ hasText: "Add at least one arm" }).getByRole("link").getAttribute("href"),
    ).toBe(`/admin/experiments/${experiment.id}#groups-heading`);
    expect(
      await fixes.filter({ hasText: "Add videos to the pool" }).getByRole("link").getAttribute("href"),
    ).toBe(`/admin/experiments/${experiment.id}#pool-heading`);
    await fixes
      .filter({ hasText: "“Background” is inactive" })
      .getByRole("link", { name: "Go to Surveys" })
      .click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#surveys-heading");
    await expect
      .poll(() =>
        page
          .getByRole("heading", { name: "Surveys", level: 2 })
          .evaluate((h) => h.getBoundingClientRect().top),
      )
      .toBeLessThan(200);

    // A refused start: nothing changes, and the problems are in plain words.
    await status.getByRole("button", { name: "Start the study" }).click();
    const confirm = page.getByRole("dialog", { name: "Start the study?" });
    await confirm.getByText(/new participants can join with the study link/).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await confirm.getByRole("button", { name: "Start the study" }).click();
    const refusal = status
      .getByRole("alert")
      .getByText(
        /^Not started: first fix what “Before you start” lists below\. The study is still a draft\./,
      );
    await refusal.waitFor();
    await confirm.waitFor({ state: "detached" });
    expect(await badge.textContent()).toBe("draft");
    expect(
      await checklist.getByText("Add videos to the pool: participants would see an empty feed.").count(),
    ).toBe(1);
    await saveScreenshot(page, "experiment-page-refused-start");
    expect(await axeViolations(page)).toEqual([]);

    // An arm: the checklist drops its line at once.
    const arms = page.getByRole("region", { name: "Arms" });
    await arms.getByRole("button", { name: "Add arm" }).click();
    const dialog = page.getByRole("dialog", { name: "New arm" });
    await dialog.getByLabel("Name").fill("Control");
    await dialog.getByRole("button", { name: "Create arm" }).click();
    await dialog.waitFor({ state: "hidden" });
    await checklist.getByText("Add at least one arm").waitFor({ state: "detached" });
    expect(await missing()).toEqual([expect.stringContaining("Add videos to the pool")]);
    // The toast says so without covering a control: not "Add arm", nothing else either.
    const toast = page.getByRole("region", { name: "Notifications" }).getByText('Arm "Control" created.');
    await toast.waitFor();
    await saveScreenshot(page, "experiment-page-arm-toast");
    expect(await page.getByRole("region", { name: "Notifications" }).getByRole("status").count()).toBe(1);
    const box = await toast.locator("..").boundingBox();
    expect(box).not.toBeNull();
    expect(await controlsUnder(page, box as NonNullable<typeof box>)).toEqual([]);
    await arms.getByRole("button", { name: "Add arm" }).click({ trial: true });

    // The pool: ready, with the warnings still shown.
    const pool = page.getByRole("region", { name: "Video pool" });
    await pool.getByLabel("Select all").check();
    await pool.getByRole("button", { name: "Save pool" }).click();
    await checklist.getByText(/Ready: participants can join/).waitFor();
    expect(await missing()).toEqual([]);
    expect(await warnings()).toHaveLength(2);
    // Nothing is missing any more: the refusal is settled.
    await refusal.waitFor({ state: "detached" });

    // Completion waiting for a post-study survey that is inactive: a problem again, named once.
    const flow = page.getByRole("region", { name: "Consent and completion" });
    await flow
      .getByText(/^The study is a draft: these links turn participants away until you start it\./)
      .waitFor();
    await flow.getByRole("checkbox", { name: /Only after an answer to the post-study survey/ }).check();
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await checklist.getByText(/no post-study survey is active/).waitFor();
    expect(await warnings()).toEqual([expect.stringMatching(/pre-study survey “Background” is inactive/)]);

    // Activating the post-study survey on the page clears it.
    const surveys = page.getByRole("region", { name: "Surveys" });
    await surveys.getByRole("button", { name: "Activate survey Exit questions" }).click();
    await checklist.getByText(/Ready: participants can join/).waitFor();
    expect(await missing()).toEqual([]);
    expect(await warnings()).toEqual([expect.stringMatching(/pre-study survey “Background” is inactive/)]);
    await saveScreenshot(page, "experiment-page-checklist-ready");
    expect(await axeViolations(page)).toEqual([]);

    // Starting with an inactive survey works: it was a warning, not a refusal. It is running at once,
    // without a save: the badge, the checklist and the buttons say so, and so does a reload.
    await status.getByRole("button", { name: "Start the study" }).click();
    await confirm.getByRole("button", { name: "Start the study" }).click();
    await badge.filter({ hasText: "running" }).waitFor();
    await checklist.waitFor({ state: "detached" });
    expect(await status.getByRole("button").allTextContents()).toEqual([
      "Pause the study",
      "Complete the study",
    ]);
    await status.getByText(/^Running: new participants join/).waitFor();
    // The study links no longer say they turn participants away.
    await flow
      .getByText(/^The study is a draft: these links turn participants away/)
      .waitFor({ state: "detached" });
    expect(await page.evaluate(() => "samePageLoad" in window)).toBe(true);
    const stored = async () =>
      (await suite.api.get<Experiment>(`/api/v1/admin/experiments/${experiment.id}`)).body.status;
    expect(await stored()).toBe("running");

    // Pausing and resuming ask first; cancelling changes nothing.
    await status.getByRole("button", { name: "Pause the study" }).click();
    const pause = page.getByRole("dialog", { name: "Pause the study?" });
    await pause.getByRole("button", { name: "Cancel" }).click();
    await pause.waitFor({ state: "detached" });
    expect(await stored()).toBe("running");
    /** Presses a status button, confirms in its dialog, and waits for the badge to show the new status. */
    const changeStatus = async (verb: "Pause" | "Resume" | "Complete", to: Experiment["status"]) => {
      const action = `${verb} the study`;
      await status.getByRole("button", { name: action }).click();
      await page
        .getByRole("dialog", { name: `${action}?` })
        .getByRole("button", { name: action })
        .click();
      await badge.filter({ hasText: to }).waitFor();
      expect(await stored()).toBe(to);
    };
    await changeStatus("Pause", "paused");
    await changeStatus("Resume", "running");
    await changeStatus("Complete", "completed");
    await page.reload();
    await badge.filter({ hasText: "completed" }).waitFor();
    expect(await status.getByRole("button").allTextContents()).toEqual(["Reopen the study"]);
  });

  it("names every section in a navigation at both widths, each link reaching its heading, with the loopback warning once", async () => {
    const experiment = await newExperiment("A long page");
    for (const [name, viewport] of [
      ["laptop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      const page = await consolePage(viewport);
      await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
      const nav = page.getByRole("navigation", { name: "Sections of this page" });
      const links = nav.getByRole("link");
      await links.first().waitFor();
      const headings = (
        await page.locator(".sections section > .panel-header h2, .sections section > h2").allTextContents()
      ).map((t) => t.trim());
      expect((await links.allTextContents()).map((t) => t.trim())).toEqual(headings);
      // Every link is on screen without scrolling sideways, and leads to its heading, which ends up in view
      // below the console's sticky header.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      for (const label of ["Video pool", "Consent and completion", "Study file"]) {
        await nav.getByRole("link", { name: label, exact: true }).click();
        const heading = page.getByRole("heading", { name: label, level: 2, exact: true });
        await expect
          .poll(async () => {
            const box = await heading.evaluate((h) => h.getBoundingClientRect().toJSON() as DOMRect);
            const header = await page.getByRole("banner").evaluate((h) => h.getBoundingClientRect().bottom);
            return box.top >= header && box.bottom <= viewport.height;
          })
          .toBe(true);
        await page.evaluate(() => window.scrollTo(0, 0));
      }
      // The test server's public URL is a loopback address: said once, not beside every link.
      const loopback = page.getByRole("note").filter({ hasText: /loopback address/ });
      await loopback.waitFor();
      expect(await loopback.count()).toBe(1);
      await saveScreenshot(page, `experiment-page-navigation-${name}`);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }
  });

  it("says what a latency gap rests on, too few participants to tell, and links to the least response time by its console name", async () => {
    const study = await createStudy(suite.api, {
      weights: [1, 1],
      videoCount: 2,
      status: "running",
      name: "Speed",
    });
    // One participant per arm: 3 feed loads at 1830 ms in one, 2 at 17 ms in the other.
    const slow = await joinWithSession(suite.app.client(), study.experiment.id, "slow-one");
    const fast = await joinWithSession(suite.app.client(), study.experiment.id, "fast-one");
    const armOf = async (p: Joined) => (await p.client.get<{ group_id: string }>("/api/v1/me")).body.group_id;
    expect(await armOf(slow)).not.toBe(await armOf(fast));
    const feed = (latency_ms: number) =>
      wireEvent("HOME_FEED", { payload: { ...EXAMPLE_PAYLOADS.HOME_FEED, latency_ms } });
    expect((await sendEvents(slow, [feed(1830), feed(1830), feed(1830)])).body.rejected).toEqual([]);
    expect((await sendEvents(fast, [feed(17), feed(17)])).body.rejected).toEqual([]);
    expect(
      await suite.app.runtime.progress.waitFor(await suite.app.runtime.eventLog.position(), 15_000),
    ).toBe(true);
    const names = new Map(study.groups.map((g) => [g.id, g.name]));
    const slowName = names.get(await armOf(slow));

    const page = await consolePage(DESKTOP);
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/results`);
    const warning = page.getByRole("alert").filter({ hasText: /^\s*Feed:/ });
    await warning.waitFor();
    const text = ((await warning.textContent()) ?? "").replace(/\s+/g, " ");
    expect(text).toMatch(new RegExp(`Feed: ${slowName} is 1,?8\\d\\d ms slower`));
    expect(text).toContain("based on 3 feed requests from 1 participant in");
    expect(text).toContain("2 feed requests from 1 participant in");
    expect(text).toMatch(/too few participants to tell/);
    expect(text).not.toContain("min_response_ms");
    const table = page.getByRole("table", { name: "Latency per arm" });
    await table.getByRole("row", { name: new RegExp(`${slowName}.*3 from 1 participant`) }).waitFor();
    await saveScreenshot(page, "results-latency-few");

    await warning.getByRole("link", { name: /least response time/ }).click();
    await page.waitForURL(`${suite.app.url}/admin/experiments/${study.experiment.id}#validity-heading`);
    const field = page.getByLabel("Least response time for every arm (milliseconds)");
    await field.waitFor();
    expect(await page.getByText(/Slowest answer time/).count()).toBe(0);
    const hint = await field.getAttribute("aria-describedby");
    expect(await page.locator(`#${hint}`).textContent()).toMatch(/takes at least this long/);
  });

  it("names the return link's problem with the field's label and shows the platform shortcuts as buttons", async () => {
    const experiment = await newExperiment("Return link study");
    const page = await consolePage(DESKTOP);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const flow = page.getByRole("region", { name: "Consent and completion" });
    const link = flow.getByLabel("Return link (optional)");
    // Typed without https://: Feedlab says what is wrong as soon as the field is left, never the browser.
    await link.fill("app.prolific.com/submissions/complete?cc={code}");
    await link.press("Tab");
    const error = flow.getByText(/^The return link must be a full web address starting with https:\/\//);
    await error.waitFor();
    expect(await error.textContent()).toMatch(/for Prolific, paste the whole completion URL/);
    expect(await link.getAttribute("aria-invalid")).toBe("true");
    expect(await link.getAttribute("aria-describedby")).toBe(await error.getAttribute("id"));
    expect(await link.evaluate((el: HTMLInputElement) => el.validationMessage)).toBe("");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await error.waitFor();
    expect(await page.evaluate(() => document.activeElement?.matches(":invalid") ?? false)).toBe(false);
    await link.fill("prolific complete page");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await error.waitFor();
    expect(await flow.getByText(/redirect URL/i).count()).toBe(0);
    await link.fill("https://example.org/done?c={code}&who={participant}");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await flow.getByText(/^The return link has placeholders Feedlab cannot fill: \{participant\}/).waitFor();

    // The shortcuts look like the console's other secondary buttons: a border and a filled background.
    const prolific = flow.getByRole("button", { name: "Use Prolific's return link" });
    const look = (button: Locator) =>
      button.evaluate((el) => {
        const s = getComputedStyle(el);
        return { border: s.borderTopWidth, borderColor: s.borderTopColor, background: s.backgroundColor };
      });
    const generate = await look(flow.getByRole("button", { name: "Generate" }));
    expect(await look(prolific)).toEqual(generate);
    expect(generate.border).toBe("1px");
    expect(generate.background).not.toBe("rgba(0, 0, 0, 0)");
    await prolific.click();
    expect(await link.inputValue()).toBe("https://app.prolific.com/submissions/complete?cc={code}");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await page.getByText("Consent and completion saved.").waitFor();
    await saveScreenshot(page, "experiment-page-return-link");
  });

  it("pages the participants table 50 at a time, and finds participants by login id, status and arm", async () => {
    const experiment = await newExperiment("A study with many participants");
    const arm = async (name: string) =>
      (
        await suite.api.post<{ id: string }>(`/api/v1/admin/experiments/${experiment.id}/groups`, {
          name,
          algorithm_config: { feed: "recency", watch: "recency" },
          ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
        })
      ).body;
    const arms = [await arm("Control"), await arm("Treatment")];
    const logins = Array.from({ length: 61 }, (_, i) => `worker-${String(i + 1).padStart(3, "0")}`);
    for (const [i, login] of logins.entries())
      await suite.api.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
        login_id: login,
        group_id: arms[i % 2]?.id,
      });

    const page = await consolePage(DESKTOP);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const section = page.getByRole("region", { name: "Participants", exact: true });
    const rows = section.getByRole("table").getByRole("row");
    const status = section.getByRole("navigation", { name: "Participants pages" }).getByRole("status");
    const find = section.getByRole("search", { name: "Find participants" });
    await status.getByText("Showing 1–50 of 61").waitFor();
    await section.getByText("61 participants").waitFor();
    expect(await rows.count()).toBe(51); // the header and 50 participants
    expect(await section.getByRole("button", { name: "Previous page" }).isDisabled()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await section.getByRole("button", { name: "Next page" }).click();
    await status.getByText("Showing 51–61 of 61").waitFor();
    expect(await rows.nth(1).textContent()).toContain("worker-051");
    expect(await section.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await section.getByRole("button", { name: "Previous page" }).click();
    await status.getByText("Showing 1–50 of 61").waitFor();

    // Newest first, then a search as the researcher types: any case, part of the id.
    await find.getByLabel("Sort by").selectOption({ label: "Newest joined first" });
    await rows.nth(1).getByRole("link", { name: "worker-061", exact: true }).waitFor();
    await find.getByLabel("Search login IDs").fill("WORKER-00");
    await status.getByText("Showing 1–9 of 9 matching").waitFor();
    expect(await rows.nth(1).textContent()).toContain("worker-009");
    await find.getByLabel("Filter by arm").selectOption({ label: "Treatment" });
    await status.getByText("Showing 1–4 of 4 matching").waitFor(); // 002, 004, 006, 008
    await find.getByLabel("Filter by status").selectOption({ label: "Finished" });
    await section.getByText("No participant matches these filters.").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "participants-no-match");
    await section.getByRole("button", { name: "Clear filters" }).click();
    await status.getByText("Showing 1–50 of 61").waitFor();
    expect(await find.getByLabel("Search login IDs").inputValue()).toBe("");
  });

  it("has no axe violations and no table scrolling sideways, with every card filled, on a laptop and a phone", async () => {
    const experiment = await newExperiment("A study with every card filled in and a long name to wrap");
    const arm = async (name: string, feed: string, ui: string) =>
      (
        await suite.api.post<{ id: string }>(`/api/v1/admin/experiments/${experiment.id}/groups`, {
          name,
          weight: 2,
          algorithm_config: { feed, watch: "similarity" },
          ui_config: { feed: ui, watch: ui },
        })
      ).body;
    const control = await arm("Control: newest first", "recency", "grid-desktop");
    await arm("Treatment with a trained ranking model", "learned_model", "list-mobile");
    await suite.api.put(`/api/v1/admin/experiments/${experiment.id}/videos`, {
      video_ids: suite.videos.map((v) => v.id),
    });
    await createSurvey(suite.api, experiment.id, {
      kind: "pre",
      name: "Background and viewing habits",
      is_active: true,
    });
    await createSurvey(suite.api, experiment.id, { kind: "inter_session", name: "How was your last visit?" });
    await createSurvey(suite.api, experiment.id, { kind: "post", name: "Exit questions", is_active: true });
    for (const login of ["prolific-5f8a1c2e9b7d4a0012345678", "p-2"])
      await suite.api.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
        login_id: login,
        group_id: control.id,
      });
    await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      consent_text: "# Taking part\n\nYou will browse **short videos**.",
      completion: {
        after_sessions: 2,
        code: "C9XK2QPA",
        redirect_url: "https://app.prolific.com/submissions/complete?cc={code}",
      },
    });

    for (const [name, viewport] of [
      ["laptop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      const page = await consolePage(viewport);
      await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
      await page.getByRole("group", { name: "Before you start" }).getByText(/Ready/).waitFor();
      await page.getByRole("row", { name: /prolific-5f8a1c2e9b7d4a0012345678/ }).waitFor();
      await saveScreenshot(page, `experiment-page-${name}`);
      expect(await axeViolations(page)).toEqual([]);
      if (name === "laptop") expect(await tablesScrollingSideways(page)).toEqual([]);
      // The page itself never scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      // The arm dialog as well.
      await page.getByRole("button", { name: "Add arm" }).click();
      await page.getByRole("dialog", { name: "New arm" }).waitFor();
      expect(await axeViolations(page, "dialog[open]")).toEqual([]);
      // The dialog as seen, not the whole page behind it.
      await page.screenshot({ path: join(resultsDir, `experiment-page-${name}-arm-dialog.png`) });
      await page.keyboard.press("Escape");
    }
  });
});
