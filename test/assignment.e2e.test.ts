import { describe, expect, it } from "vitest";
import { violationsAtBothWidths } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy } from "./harness/fixtures.ts";
import { createSurvey, sampleQuestions } from "./harness/surveys.ts";

/**
 * Assignment in the console (issue 56): a researcher chooses permuted blocks and caps an arm on the
 * experiment page, and reads on the results page how full each arm is and the chance of the next
 * newcomer, without writing a request.
 */
describe("assignment in the console (Chromium)", () => {
  const suite = e2eSuite();

  it("sets permuted blocks and an arm's cap on a draft, then shows the full arm and the chances on the results page", async () => {
    const study = await createStudy(suite.api, { videoCount: 2, weights: [1, 1], name: "Blocks study" });
    const id = study.experiment.id;
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${id}`);

    const section = page.getByRole("region", { name: "Assignment" });
    await section.getByRole("radio", { name: /Permuted blocks/ }).check();
    await section.getByRole("spinbutton", { name: "Block size" }).fill("3");
    await section.getByRole("button", { name: "Save assignment" }).click();
    // Blocks of 3 cannot hold two arms of weight 1 evenly: the server says so, in the section.
    await section.getByRole("alert").filter({ hasText: "multiple of the arms" }).waitFor();
    await section.getByRole("spinbutton", { name: "Block size" }).fill("4");
    await section.getByRole("spinbutton", { name: "Seed" }).fill("9");
    await section.getByRole("button", { name: "Save assignment" }).click();
    await page.getByText("Assignment saved.").waitFor();
    expect((await suite.api.get(`/api/v1/admin/experiments/${id}`)).body).toMatchObject({
      assignment: { method: "blocked", block_size: 4, seed: 9 },
    });

    // A cap on the first arm, in the arm's own dialog.
    await page.getByRole("button", { name: "Edit arm Arm 1" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("spinbutton", { name: "Most participants" }).fill("2");
    await dialog.getByRole("button", { name: /Save/ }).click();
    await page
      .getByRole("region", { name: "Arms" })
      .getByRole("row", { name: /Arm 1/ })
      .getByText("0 of 2")
      .waitFor();
    expect(await violationsAtBothWidths(page, "assignment-experiment")).toEqual({ desktop: [], phone: [] });

    // Started, the method stays; newcomers fill the capped arm to its cap and go on to the other.
    expect((await suite.api.patch(`/api/v1/admin/experiments/${id}`, { status: "running" })).status).toBe(
      200,
    );
    for (let i = 0; i < 6; i++) {
      const joined = await suite.app
        .client()
        .post("/api/v1/participants/join", { experiment_id: id, login_id: `b-${i}` });
      expect(joined.status).toBe(200);
    }
    await page.reload();
    await page.getByText("The study has started, so the method stays as it is").waitFor();
    expect(await section.getByRole("button", { name: "Save assignment" }).count()).toBe(0);

    await page.goto(`${suite.app.url}/admin/experiments/${id}/results`);
    const balance = page.getByRole("region", { name: "Balance" });
    await balance.getByText("Permuted blocks assignment").waitFor();
    const full = balance.getByRole("row", { name: /Arm 1/ });
    expect(await full.textContent()).toMatch(/2\s*2\s*Full\s*0%/);
    expect(await balance.getByRole("row", { name: /Arm 2/ }).textContent()).toMatch(/4\s*—\s*Open\s*100%/);
    // A capped arm's share is not the weights' on purpose: the sample-ratio check says it does not apply.
    await page.getByRole("region", { name: "Live monitoring" }).getByText("not applied").waitFor();
    expect(await violationsAtBothWidths(page, "assignment-results")).toEqual({ desktop: [], phone: [] });
    await context.close();
  });

  it("balances on a pre survey question ticked in the console: a participant gets the feed only after answering, and the Balance card names the question", async () => {
    const study = await createStudy(suite.api, { videoCount: 2, weights: [1, 1], name: "Mood study" });
    const id = study.experiment.id;
    await createSurvey(suite.api, id, {
      kind: "pre",
      name: "About you",
      is_active: true,
      questions: sampleQuestions(),
    });
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${id}`);

    const section = page.getByRole("region", { name: "Assignment" });
    await section.getByRole("radio", { name: /Minimisation/ }).check();
    const questions = section.getByRole("group", { name: "Balance on pre-survey answers" });
    // Only the single-choice question can be balanced on.
    await questions.getByRole("checkbox", { name: /How do you feel right now\?/ }).check();
    expect(await questions.getByRole("checkbox", { name: /Which topics interest you/ }).count()).toBe(0);
    await section.getByRole("button", { name: "Save assignment" }).click();
    await page.getByText("Assignment saved.").waitFor();
    expect((await suite.api.get(`/api/v1/admin/experiments/${id}`)).body).toMatchObject({
      assignment: { method: "minimisation", covariates: [{ source: "survey", key: "mood" }] },
    });
    expect(await violationsAtBothWidths(page, "assignment-survey-covariate")).toEqual({
      desktop: [],
      phone: [],
    });
    expect((await suite.api.patch(`/api/v1/admin/experiments/${id}`, { status: "running" })).status).toBe(
      200,
    );

    // A participant sees only the pre survey; their answer assigns them, and the feed follows.
    const participant = await (await suite.newContext()).newPage();
    await participant.goto(`${suite.app.url}/join/${id}?login_id=mood-browser`);
    await participant.waitForURL(`${suite.app.url}/`);
    const dialog = participant.getByRole("dialog", { name: "Before you start" });
    await dialog.waitFor();
    const feed = participant.getByRole("list", { name: "Recommended videos" });
    expect(await feed.count()).toBe(0);
    const waiting = (
      await suite.api.get<{ items: { group_id: string | null }[] }>(
        `/api/v1/admin/experiments/${id}/participants`,
      )
    ).body.items;
    expect(waiting.map((p) => p.group_id)).toEqual([null]);
    expect(await violationsAtBothWidths(participant, "assignment-waiting-participant")).toEqual({
      desktop: [],
      phone: [],
    });
    await saveScreenshot(participant, "assignment-pre-survey-decides");
    await dialog.getByRole("radio", { name: "Good" }).check();
    await dialog.getByRole("checkbox", { name: "Food" }).check();
    await dialog.getByLabel("Anything else, in your words?").fill("Curious.");
    await dialog.getByRole("button", { name: "Submit" }).click();
    await dialog.waitFor({ state: "detached" });
    await feed.getByRole("link").first().waitFor();
    const assigned = (
      await suite.api.get<{ items: { group_id: string | null; assignment: unknown }[] }>(
        `/api/v1/admin/experiments/${id}/participants`,
      )
    ).body.items;
    expect(study.groups.map((g) => g.id)).toContain(assigned[0]?.group_id);
    expect(assigned[0]?.assignment).toMatchObject({
      method: "minimisation",
      covariates: { "survey:mood": "2" },
    });

    await page.goto(`${suite.app.url}/admin/experiments/${id}/results`);
    const balance = page.getByRole("region", { name: "Balance" });
    await balance.getByText("“How do you feel right now?” per arm").waitFor();
    await balance.getByRole("columnheader", { name: "Good" }).waitFor();
    await saveScreenshot(page, "assignment-balance-survey-covariate");
    await context.close();
  });
});
