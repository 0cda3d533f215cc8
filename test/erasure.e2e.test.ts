import type { Experiment } from "@feedlab/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";

describe("erasure in Chromium: a participant leaves the study, a researcher deletes a participant's data", () => {
  const suite = consoleSuite("erasure-e2e", "Erasure test video");
  let experiment: Experiment;

  beforeAll(async () => {
    experiment = await createArmStudy(suite.api, "Erasure study", suite.videos);
  });

  const eventsOf = async (loginId: string) =>
    (
      await suite.app.runtime
        .db("events")
        .where({ login_id: loginId })
        .count<{ n: string | number }[]>({ n: "*" })
    )[0]?.n;

  it("lets a participant leave from the feed; their data is gone and their cookie no longer works", async () => {
    const context = await suite.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=leaver`);
    await page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().waitFor();
    // Their impressions reach the store first.
    await expect.poll(async () => Number(await eventsOf("leaver")), { timeout: 15_000 }).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Leave study" }).click();
    const dialog = page.getByRole("dialog", { name: "Leave the study?" });
    await dialog.waitFor();
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await saveScreenshot(page, "erasure-leave-dialog");
    await dialog.getByRole("button", { name: "Leave and delete my data" }).click();
    await page.getByRole("heading", { name: "You have left the study" }).waitFor();
    await saveScreenshot(page, "erasure-left");
    expect(await axeViolations(page)).toEqual([]);

    expect(Number(await eventsOf("leaver"))).toBe(0);
    expect(await suite.app.runtime.db("users").where({ login_id: "leaver" })).toEqual([]);
    const me = await page.evaluate(async () => (await fetch("/api/v1/me")).status);
    expect(me).toBe(401);
    const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("feedlab.")));
    expect(kept).toEqual([]);
    expect(errors).toEqual([]);
    const audit = await suite.api.get<{ action: string; admin: string | null }[]>("/api/v1/admin/audit");
    expect(audit.body.find((e) => e.action === "participant.withdraw")?.admin).toBeNull();
  });

  it("lets a researcher delete a participant's data from the console, after saying what goes", async () => {
    const joined = await suite.app.client().post("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "asks-for-deletion",
    });
    expect(joined.status).toBe(200);
    const context = await suite.newContext();
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const participants = page.getByRole("region", { name: "Participants" });
    await participants.getByRole("row", { name: /asks-for-deletion/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await participants.getByRole("button", { name: "Delete data of asks-for-deletion" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this participant’s data" });
    await dialog.getByText(/deleted for good/).waitFor();
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await saveScreenshot(page, "erasure-console-dialog");
    await dialog.getByRole("button", { name: "Delete all their data" }).click();
    await page.getByText("“asks-for-deletion” and all their data are deleted.").waitFor();
    await participants.getByRole("row", { name: /asks-for-deletion/ }).waitFor({ state: "detached" });
    expect(await suite.app.runtime.db("users").where({ login_id: "asks-for-deletion" })).toEqual([]);
    const audit = await suite.api.get<{ action: string; admin: string | null }[]>("/api/v1/admin/audit");
    expect(audit.body.find((e) => e.action === "participant.erase")?.admin).toBe("admin");
  });
});
