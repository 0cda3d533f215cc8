import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { joinWith, plantedSession } from "../api/src/quality/quality.fixture.ts";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { sendEvents, wireEvent } from "./harness/events.ts";
import { createStudy } from "./harness/fixtures.ts";

/** Issue 37: the console shows participant quality (docs/quality.md) in the list and on a participant's page. */
describe("participant quality in the console (Chromium)", () => {
  const suite = e2eSuite();
  let experimentId: string;
  let hiddenId: string;
  beforeAll(async () => {
    const study = await createStudy(suite.api, {
      name: "Quality",
      status: "running",
      weights: [1],
      videoCount: 1,
    });
    experimentId = study.experiment.id;
    const start = Date.now() - 3_600_000;
    for (const [login, behaviour] of [
      ["steady", {}],
      ["away", { hidden: true, pointer: false }],
    ] as const) {
      const p = await joinWith(suite.app, experimentId, login);
      expect((await sendEvents(p, plantedSession(behaviour, start))).body.rejected).toEqual([]);
      if (login === "away") {
        hiddenId = p.userId;
        // Two more visits that sent only tab state, which the timeline leaves out: completion counts
        // them all the same. A third, registered without any event, counts for nothing.
        for (const [i, session_id] of [randomUUID(), randomUUID(), randomUUID()].entries()) {
          expect((await p.client.post("/sessions", { session_id })).status).toBe(201);
          if (i === 2) continue;
          const events = [wireEvent("WINDOW_BLUR")];
          expect((await p.client.post("/api/v1/events", { session_id, events })).status).toBe(202);
        }
      }
    }
    expect(
      await suite.app.runtime.progress.waitFor(await suite.app.runtime.eventLog.position(), 10_000),
    ).toBe(true);
  });

  it("shows each participant's flags by name in the list, and the measures beside their thresholds on their page", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    const away = page.getByRole("row").filter({ hasText: "away" });
    await away.getByText("Tab mostly hidden").waitFor();
    await away.getByText("No pointer on desktop").waitFor();
    expect(
      await page.getByRole("row").filter({ hasText: "steady" }).getByText("Tab mostly hidden").count(),
    ).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "quality-participants");

    await page.goto(`${suite.app.url}/admin/participants/${hiddenId}?experiment=${experimentId}&login=away`);
    // One count of sessions everywhere: the page's, the list's and the one completion reads.
    await page
      .getByText(
        /^3 sessions, \d+ events shown in time order \(2 sessions sent none of the events shown here\)/,
      )
      .waitFor();
    const listed = await suite.api.get<{ items: { login_id: string; sessions: number }[] }>(
      `/api/v1/admin/experiments/${experimentId}/participants?q=away`,
    );
    expect(listed.body.items.map((p) => [p.login_id, p.sessions])).toEqual([["away", 3]]);
    expect(
      (await suite.api.get<{ sessions: number }>(`/api/v1/admin/participants/${hiddenId}`)).body.sessions,
    ).toBe(3);
    const card = page.getByRole("region", { name: "Quality" });
    await card.getByRole("row", { name: /Hidden share of the visit 62% Flagged over 50%/ }).waitFor();
    await card.getByRole("row", { name: /Active time 120\.5 s under 60 s/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "quality-participant");
    await context.close();
  });

  it("fits a participant's page on a phone: nothing scrolls sideways at 390 px, an event's details opened", async () => {
    const context = await suite.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/participants/${hiddenId}?experiment=${experimentId}&login=away`);
    await page
      .getByRole("region", { name: "Quality" })
      .getByRole("row", { name: /Hidden share/ })
      .waitFor();
    await page.getByRole("region", { name: "Timeline" }).locator("summary").first().click();
    await saveScreenshot(page, "quality-participant-390");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it("takes exclusion rules from the experiment page, and shows the arms without and with them and the change after the start on the results page", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    const section = page.getByRole("region", { name: "Exclusion rules and response time" });
    await section.getByText("The study has started: a change is recorded").waitFor();
    await section.getByRole("button", { name: "Add a rule" }).click();
    await section.getByLabel("Measure of rule 1").selectOption("hidden_share");
    await section.getByLabel("Comparison of rule 1").selectOption(">");
    await section.getByLabel("Value of rule 1").fill("0.5");
    expect(await axeViolations(page)).toEqual([]);
    await section.getByRole("button", { name: "Save exclusion rules and response time" }).click();
    await page.getByText("Exclusion rules and response time saved.").waitFor();
    const stored = await suite.api.get<{ exclusion_rules: unknown[] }>(
      `/api/v1/admin/experiments/${experimentId}`,
    );
    expect(stored.body.exclusion_rules).toEqual([{ measure: "hidden_share", op: ">", value: 0.5 }]);

    await page.goto(`${suite.app.url}/admin/experiments/${experimentId}/results`);
    const card = page.getByRole("region", { name: "Exclusion rules" });
    await card.getByText("hidden_share > 0.5").first().waitFor();
    // The away participant's tab was hidden 62% of the visit: the rule leaves one of the two.
    const arm = card
      .getByRole("table", { name: "Arms without and with the exclusion rules" })
      .getByRole("row", {
        name: /Arm 1/,
      });
    expect((await arm.getByRole("cell").allTextContents()).map((t) => t.trim())).toEqual(
      expect.arrayContaining(["2", "1"]),
    );
    const change = card.getByRole("table", { name: "Changes of the exclusion rules after the start" });
    await change.getByRole("row", { name: /admin no rules hidden_share > 0\.5/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "exclusion-rules-results");
    await context.close();
  });

  it("answers the power calculator on the results page from assumed rates, with the number per arm and its plot", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experimentId}/results`);
    const card = page.getByRole("region", { name: "Power" });
    // Click-through 10% against 12%, intra-participant correlation 0.05, 50 impressions each: by hand,
    // 7.848879 x (0.09 + 0.1056) / 0.02^2 x (1 + 49 x 0.05) / 50 = 264.8, so 265 per arm (docs/power.md).
    await card.getByLabel("Difference to detect (percentage points)").fill("2");
    await card.getByLabel("Baseline rate (%)").fill("10");
    await card.getByLabel("Intra-participant correlation (0–1)").fill("0.05");
    await card.getByLabel(/per participant/).fill("50");
    await card.getByRole("button", { name: "Calculate" }).click();
    await card.getByText("Participants needed per arm").waitFor();
    expect((await card.locator("dd").first().textContent())?.trim()).toBe("265");
    await card.getByRole("img", { name: /Power against participants per arm/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "power-calculator");
    await context.close();
  });
});
