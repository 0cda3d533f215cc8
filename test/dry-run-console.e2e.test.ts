import type { Group, ParticipantPage } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { resizeTo, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

const ARMS = ["Newest first", "Shuffled"] as const;

/**
 * Issue 36, the console's part: a researcher with a draft study follows the checklist's offer to a
 * dry run, starts one over HTTP with two simulated participants per arm, watches it finish, reads the
 * report arm by arm, finds it among the past runs, and erases the simulated participants (the report
 * stays). Meanwhile the experiment page lists the real participants apart from the simulated ones, and
 * an arm the dry run filled says so when it cannot be deleted (issue 52). Last, a rule of minutes on the
 * pages the run cannot wait for leaves the completion shown as not tested rather than green.
 */
describe("a dry run from the console", () => {
  const suite = e2eSuite();
  let page: Page;
  let study: StudyFixture;

  beforeAll(async () => {
    study = await createStudy(suite.api, { weights: [1, 1], videoCount: 8, name: "Pilot feed study" });
    const [first, second] = study.groups as [Group, Group];
    await suite.api.patch(`/api/v1/admin/groups/${first.id}`, { name: ARMS[0] });
    await suite.api.patch(`/api/v1/admin/groups/${second.id}`, {
      name: ARMS[1],
      algorithm_config: { feed: "random", watch: "similarity" },
    });
    await createSurvey(suite.api, study.experiment.id, { kind: "pre", name: "Background", is_active: true });
    await suite.api.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      completion: {
        after_sessions: 2,
        code: "PILOT1",
        redirect_url: "https://panel.example/done?p={login_id}&c={code}",
      },
    });
    page = await suite.browser.newPage({ viewport: { width: 1366, height: 900 } });
    await signInToConsole(page, suite.app.url);
  }, 60_000);

  it("is offered by the checklist before the start, and reports every arm green", async () => {
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    await page
      .getByRole("link", { name: "Try every arm with simulated participants first (dry run)" })
      .click();
    await page.getByRole("heading", { name: "Dry run", level: 1 }).waitFor();
    expect(await page.getByText(/^No dry runs yet/).isVisible()).toBe(true);

    await page.getByLabel("In a browser (Chromium)").uncheck();
    await page.getByLabel("Participants per arm").fill("2");
    // A set seed: a run where every participant of an arm declines would leave its completion untested.
    await page.getByLabel("Seed (optional)").fill("7");
    await page.getByRole("button", { name: "Start dry run" }).click();

    const verdict = page.getByRole("status").filter({ hasText: "arms" });
    await verdict.waitFor({ timeout: 45_000 });
    expect(await verdict.textContent()).toContain("All 2 arms are green.");
    for (const name of ARMS) {
      const card = page.getByRole("article", { name });
      expect(await card.getByText("Green", { exact: true }).isVisible()).toBe(true);
      expect(await card.getByText("Background (pre-study)").isVisible()).toBe(true);
      expect(await card.getByText(/^2 joined/).isVisible()).toBe(true);
    }
    expect(new URL(page.url()).searchParams.get("run")).toMatch(/^[0-9a-f-]{36}$/);

    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "dry-run-report");
  }, 60_000);

  it("keeps the report among the past runs", async () => {
    const shownRun = new URL(page.url()).searchParams.get("run");
    // Opened afresh, the page shows the newest report; the list opens the same run's.
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/dry-runs`);
    const past = page.getByRole("region", { name: "Past dry runs", exact: true });
    await past.getByRole("table").waitFor();
    const rows = past.getByRole("table").getByRole("row");
    expect(await rows.count()).toBe(2); // the header and the one run
    expect(await rows.nth(1).getByText("All arms green").isVisible()).toBe(true);
    await rows.nth(1).getByRole("link").click();
    await page.waitForURL((url) => url.searchParams.get("run") === shownRun);
    expect(await rows.nth(1).getByRole("link").getAttribute("aria-current")).toBe("true");
    await page.getByRole("article", { name: ARMS[0] }).waitFor();
  });

  it("lists real participants apart from the simulated ones, and says an arm's simulated participants block its deletion", async () => {
    const [first] = study.groups as [Group, Group];
    const added = await suite.api.post(`/api/v1/admin/experiments/${study.experiment.id}/participants`, {
      login_id: "real-person-1",
      group_id: first.id,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    const section = page.getByRole("region", { name: "Participants", exact: true });
    const rows = section.getByRole("table").getByRole("row");
    await section.getByText("1 participant (and 4 simulated by dry runs)").waitFor();
    // Real participants by default: the dry run's are not mixed in.
    expect(await rows.count()).toBe(2); // the header and the real participant
    expect(await rows.nth(1).getByRole("link", { name: "real-person-1" }).isVisible()).toBe(true);
    expect(await section.getByText(/^sim-/).count()).toBe(0);
    await section.scrollIntoViewIfNeeded();
    await saveScreenshot(page, "participants-real-by-default");

    const show = section.getByRole("search", { name: "Find participants" }).getByLabel("Show");
    await show.selectOption({ label: "Simulated by dry runs" });
    await section.getByText("Showing 1–4 of 4").waitFor();
    expect(await section.getByText("Simulated", { exact: true }).count()).toBe(4);
    expect(await section.getByRole("link", { name: "real-person-1" }).count()).toBe(0);
    await show.selectOption({ label: "Both" });
    await section.getByText("Showing 1–5 of 5").waitFor();

    // An arm with a real participant and simulated ones, then an arm with simulated ones only.
    const arms = page.getByRole("region", { name: "Arms", exact: true });
    await arms.getByRole("button", { name: `Delete arm ${ARMS[0]}` }).click();
    const refusal = page.getByRole("dialog", { name: "This arm cannot be deleted" });
    await refusal
      .getByText(`3 participants are assigned to “${ARMS[0]}”, 2 of them simulated by a dry run.`)
      .waitFor();
    expect(await refusal.getByText("the real participant’s arm").isVisible()).toBe(true);
    await refusal.getByRole("button", { name: "OK" }).click();
    await refusal.waitFor({ state: "hidden" });
    await arms.getByRole("button", { name: `Delete arm ${ARMS[1]}` }).click();
    await refusal
      .getByText(`2 participants are assigned to “${ARMS[1]}”, all simulated by a dry run.`)
      .waitFor();
    expect(
      await refusal.getByRole("link", { name: "Erase the dry runs’ participants" }).getAttribute("href"),
    ).toBe(`/admin/experiments/${study.experiment.id}/dry-runs`);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "arm-delete-simulated-refusal");
    await refusal.getByRole("button", { name: "OK" }).click();
    // The real participant stays for the rest of the scenario; the dry runs page is where the erase is.
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/dry-runs`);
    await page.getByRole("article", { name: ARMS[0] }).waitFor();
  });

  it("erases the simulated participants after a confirmation, and the report stays", async () => {
    const simulated = async () =>
      (
        await suite.api.get<ParticipantPage>(
          `/api/v1/admin/experiments/${study.experiment.id}/participants?simulated=true`,
        )
      ).body.items;
    expect(await simulated()).toHaveLength(4);

    await page.getByRole("button", { name: "Erase simulated participants" }).click();
    const dialog = page.getByRole("dialog", { name: "Erase the simulated participants?" });
    await dialog.waitFor();
    expect(await dialog.getByText("The dry run reports stay").isVisible()).toBe(true);
    await dialog.getByRole("button", { name: "Erase them" }).click();
    await dialog.waitFor({ state: "hidden" });

    await page.getByText("None: the dry runs’ participants are erased").waitFor();
    expect(await simulated()).toEqual([]);
    expect(await page.getByRole("button", { name: "Erase simulated participants" }).isDisabled()).toBe(true);
    expect(await page.getByRole("article", { name: ARMS[1] }).isVisible()).toBe(true);
  });

  it("shows the completion as not tested, not green, when its rule asks for minutes no simulated participant spends", async () => {
    await suite.api.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      completion: { after_feed_minutes: 1, redirect_url: "https://panel.example/done?p={login_id}" },
    });
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}/dry-runs`);
    await page.getByLabel("In a browser (Chromium)").uncheck();
    await page.getByLabel("Participants per arm").fill("2");
    // A set seed: a run where every participant of an arm declines would leave its completion untested.
    await page.getByLabel("Seed (optional)").fill("7");
    await page.getByRole("button", { name: "Start dry run" }).click();

    const verdict = page.getByRole("status").filter({ hasText: "arms" });
    await verdict.getByText(/green for what ran/).waitFor({ timeout: 45_000 });
    expect(await verdict.textContent()).toContain(
      "All 2 arms are green for what ran; the completion was not tested: no simulated participant reached it.",
    );
    expect(await verdict.textContent()).not.toContain("All 2 arms are green.");
    for (const name of ARMS) {
      const card = page.getByRole("article", { name });
      expect(await card.getByText("Green for what ran", { exact: true }).isVisible()).toBe(true);
      const completion = card.getByRole("listitem").filter({ hasText: "Completion" });
      await completion
        .getByText(
          "Not tested: The completion rule asks for 1 minute on the pages, which a dry run does not wait for.",
        )
        .waitFor();
      expect(await completion.getByText("No return link").count()).toBe(0);
    }
    const warnings = page.getByRole("list", { name: "What the run could not check" });
    const warned = (await warnings.textContent()) ?? "";
    expect(warned).toContain("asks for 1 minute on the pages");
    expect(warned).not.toMatch(/1 minutes|\(s\)/);

    const past = page.getByRole("region", { name: "Past dry runs", exact: true });
    expect(
      await past.getByRole("row").nth(1).getByText("Green for what ran; completion not tested").isVisible(),
    ).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "dry-run-completion-not-tested");
    await resizeTo(page, { width: 390, height: 844 });
    await saveScreenshot(page, "dry-run-completion-not-tested-390");
    await resizeTo(page, { width: 1366, height: 900 });
  }, 60_000);
});
