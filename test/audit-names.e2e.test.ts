import type { Group } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { deliverEvents, wireEvent } from "./harness/events.ts";
import { createStudy } from "./harness/fixtures.ts";
import { type JoinedParticipant, joinParticipant } from "./harness/surveys.ts";

/** Issue 34: the console names what it shows ids of (the audit log, a participant's page). */
describe("names beside ids in the console (Chromium)", () => {
  const suite = e2eSuite();
  let control: Group;
  let removed: Group;
  let participant: JoinedParticipant;
  let experimentId: string;
  beforeAll(async () => {
    const study = await createStudy(suite.api, { name: "Pilot", weights: [1, 1, 0.001], videoCount: 2 });
    experimentId = study.experiment.id;
    const [first, , third] = study.groups as [Group, Group, Group];
    removed = third;
    // The arm dialog sends every field; only the name and the feed recommender differ.
    const saved = await suite.api.patch<Group>(`/api/v1/admin/groups/${first.id}`, {
      name: "Control",
      weight: first.weight,
      algorithm_config: { feed: "popularity", watch: first.algorithm_config.watch },
      ui_config: first.ui_config,
      recommender_params: first.recommender_params,
    });
    control = saved.body;
    expect((await suite.api.del(`/api/v1/admin/groups/${removed.id}`)).status).toBe(204);
    await suite.api.patch(`/api/v1/admin/experiments/${experimentId}`, { status: "running" });
    // Joins until one lands in Control (balanced assignment alternates between the two arms).
    for (let i = 0; ; i++) {
      participant = await joinParticipant(suite.app, experimentId, `P-${i}`);
      if (participant.user.group_id === control.id) break;
    }
    const { client, sessionId } = participant;
    await deliverEvents({ client, sessionId, userId: participant.user.user_id }, [
      wireEvent("PAGE_LOAD", { seq: 1 }),
    ]);
    expect(
      await suite.app.runtime.progress.waitFor(await suite.app.runtime.eventLog.position(), 15_000),
    ).toBe(true);
    expect(
      (
        await suite.api.patch(`/api/v1/admin/participants/${participant.user.user_id}`, {
          excluded: true,
          reason: "test",
        })
      ).status,
    ).toBe(204);
    // The settings form sends the name and description with the status; only the status changes.
    await suite.api.patch(`/api/v1/admin/experiments/${experimentId}`, {
      name: "Pilot",
      description: study.experiment.description,
      status: "paused",
    });
    expect((await suite.api.del(`/api/v1/admin/experiments/${experimentId}/dry-runs`)).status).toBe(204);
  });

  /** The log's entries: table rows on a wide screen, cards on a narrow one. */
  const entries = (page: Page, width: number) =>
    width > 640
      ? page.getByRole("region", { name: "Entries" }).getByRole("row")
      : page.getByRole("list", { name: "Audit log entries" }).locator("> li");

  for (const viewport of [
    { width: 1366, height: 850 },
    { width: 390, height: 844 },
  ]) {
    it(`shows each audit entry's arm, experiment (a dry run's too) and participant by name, and only the fields an arm's or an experiment's update changed, at ${viewport.width}x${viewport.height}`, async () => {
      const context = await suite.newContext({ viewport });
      const page = await context.newPage();
      await signInToConsole(page, suite.app.url);
      await page.goto(`${suite.app.url}/admin/audit`);
      await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();

      const changed = entries(page, viewport.width).filter({ hasText: "Changed an arm" });
      await changed.filter({ hasText: "Arm “Control” in experiment “Pilot”" }).waitFor();
      const changedText = (await changed.textContent()) ?? "";
      expect(changedText).toContain("feed recommender: Recency → Popularity");
      expect(changedText).toContain("name: Arm 1 → Control");
      expect(changedText).not.toMatch(/weight|watch layout/);
      // The ids stay beside the names.
      expect(changedText).toContain(control.id);
      // A deleted arm still reads by its name.
      await entries(page, viewport.width)
        .filter({ hasText: "Deleted an arm" })
        .filter({ hasText: `Arm “${removed.name}” in experiment “Pilot”` })
        .waitFor();
      await entries(page, viewport.width)
        .filter({ hasText: "Excluded or included a participant" })
        .filter({ hasText: `Participant “${participant.user.login_id}” in experiment “Pilot”` })
        .waitFor();
      // A dry run's entry names its experiment, and a status-only save lists the status alone.
      await entries(page, viewport.width)
        .filter({ hasText: "Erased a dry run's participants" })
        .filter({ hasText: "Experiment “Pilot”" })
        .waitFor();
      const paused = entries(page, viewport.width)
        .filter({ hasText: "Changed an experiment" })
        .filter({ hasText: "status: paused" });
      expect(await paused.textContent()).toContain("Fields: status");
      expect(await paused.textContent()).not.toMatch(/Fields: .*(name|description)/);
      expect((await page.locator("main").textContent()) ?? "").not.toMatch(/\bgroups?\b/i);
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, `audit-names-${viewport.width}`);
      await context.close();
    });
  }

  it("shows the participant's arm and experiment by name on their page", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(
      `${suite.app.url}/admin/participants/${participant.user.user_id}?experiment=${experimentId}&login=${participant.user.login_id}`,
    );
    await page.getByRole("link", { name: "← Back to experiment “Pilot”" }).waitFor();
    await page.getByRole("heading", { name: `Participant ${participant.user.login_id}`, level: 1 }).waitFor();
    await page.getByText("Arm “Control” in experiment “Pilot”").waitFor();
    // An event's recommenders by label, beside their keys.
    await page.getByText("Opened the feed page").click();
    await page.getByText("feed Popularity popularity, watch Recency recency").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "audit-names-participant");
    await context.close();
  });
});
