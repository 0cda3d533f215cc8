import { describe, expect, it } from "vitest";
import { violationsAtBothWidths } from "./harness/axe.ts";
import { signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy } from "./harness/fixtures.ts";

/**
 * Teams in the console (issue 55): an analyst and an editor of the same study, each signed in in
 * Chromium, see what their role allows and no button it does not; an owner manages the accounts.
 */
describe("teams in the console (Chromium)", () => {
  const suite = e2eSuite();
  const PASSWORD = "team-member-password";

  async function account(username: string, role: "owner" | "researcher" = "researcher") {
    const made = await suite.api.post("/api/v1/admin/admins", { username, password: PASSWORD, role });
    expect(made.status, made.text).toBe(201);
    return { username, password: PASSWORD };
  }

  it("shows an analyst the study to read and download, and an editor the study to change, each without what their role may not do", async () => {
    const study = await createStudy(suite.api, { videoCount: 2, weights: [1], name: "Team study" });
    const other = await createStudy(suite.api, { videoCount: 0, weights: [1], name: "Someone else's study" });
    const analyst = await account("ana");
    const editor = await account("eddie");
    const put = await suite.api.put(`/api/v1/admin/experiments/${study.experiment.id}/members`, [
      { username: "admin", role: "owner" },
      { username: "eddie", role: "editor" },
      { username: "ana", role: "analyst" },
    ]);
    expect(put.status, put.text).toBe(200);
    const experimentPage = `${suite.app.url}/admin/experiments/${study.experiment.id}`;

    // The analyst: the study is in their list, the other is not; the page reads, with nothing to change.
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url, analyst);
    // The header names the account and its role.
    expect(await page.getByRole("banner").textContent()).toMatch(/\bana\s+Researcher\b/);
    await page.getByRole("link", { name: "Team study" }).waitFor();
    expect(await page.getByRole("link", { name: "Someone else's study" }).count()).toBe(0);
    await page.getByRole("link", { name: "Team study" }).click();
    await page.getByRole("heading", { name: "Team study", level: 1 }).waitFor();
    await page.getByText("You are an analyst of this experiment").waitFor();
    const members = page.getByRole("region", { name: "Members" });
    await members.getByRole("row", { name: /eddie/ }).waitFor();
    for (const name of [
      "Add arm",
      "Save pool",
      "Delete experiment",
      "New survey",
      "Add participant",
      "Train now",
    ])
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    expect(await members.getByRole("button", { name: "Add member" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Save changes" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Start the study" }).count()).toBe(0);
    const settings = page.getByRole("region", { name: "Settings" });
    expect(await settings.getByRole("textbox", { name: "Name" }).isDisabled()).toBe(true);
    expect(await violationsAtBothWidths(page, "teams-analyst-experiment")).toEqual({
      desktop: [],
      phone: [],
    });
    // What they may do, they can: the results and the downloads.
    await page.getByRole("link", { name: "Results" }).first().click();
    const downloads = page.getByRole("region", { name: "Downloads" });
    const csv = downloads.getByRole("link", { name: "CSV" }).first();
    const href = await csv.getAttribute("href");
    expect((await page.request.get(`${suite.app.url}${href}`)).status()).toBe(200);
    // The dry runs' reports are theirs to read; starting or erasing runs is not.
    await page.goto(`${experimentPage}/dry-runs`);
    await page.getByText("Dry runs are started by the experiment's editors and owners").waitFor();
    expect(await page.getByRole("button", { name: "Start dry run" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Erase simulated participants" }).count()).toBe(0);
    // Another study's page is not theirs to see.
    await page.goto(`${suite.app.url}/admin/experiments/${other.experiment.id}`);
    await page.getByText("Experiment not found").waitFor();
    await context.close();

    // The editor: changes the design and the status; the members and the deletion are the owner's.
    const editorContext = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const edits = await editorContext.newPage();
    await signInToConsole(edits, suite.app.url, editor);
    await edits.goto(experimentPage);
    await edits.getByText("You are an editor of this experiment").waitFor();
    await edits.getByRole("button", { name: "Add arm" }).waitFor();
    await edits.getByRole("button", { name: "Save pool" }).waitFor();
    expect(await edits.getByRole("button", { name: "Delete experiment" }).count()).toBe(0);
    const editorMembers = edits.getByRole("region", { name: "Members" });
    expect(await editorMembers.getByRole("button", { name: "Add member" }).count()).toBe(0);
    expect(await editorMembers.getByRole("combobox").count()).toBe(0);
    const editorSettings = edits.getByRole("region", { name: "Settings" });
    await editorSettings.getByRole("textbox", { name: "Description" }).fill("Changed by the editor");
    await editorSettings.getByRole("button", { name: "Save changes" }).click();
    await expect
      .poll(
        async () =>
          (await suite.api.get<{ description: string }>(`/api/v1/admin/experiments/${study.experiment.id}`))
            .body.description,
      )
      .toBe("Changed by the editor");
    expect(await violationsAtBothWidths(edits, "teams-editor-experiment")).toEqual({
      desktop: [],
      phone: [],
    });
    await editorContext.close();
  });

  it("lets an owner add an account with a generated password shown once, change its role, and never demote the last owner", async () => {
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("heading", { name: "Accounts", level: 1 }).waitFor();
    const accounts = page.getByRole("region", { name: "Accounts" });
    await accounts.getByLabel("Username").fill("rosa");
    await accounts.getByRole("button", { name: "Add account" }).click();
    const shown = accounts.getByRole("status");
    await shown.getByText("“rosa” can sign in with this password").waitFor();
    const password = (await shown.locator("code").textContent())?.trim() ?? "";
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(await accounts.getByLabel("Role of rosa").inputValue()).toBe("researcher");
    expect(await violationsAtBothWidths(page, "teams-accounts")).toEqual({ desktop: [], phone: [] });

    // The generated password signs rosa in, as a researcher.
    expect(
      (await suite.app.client().post("/api/v1/auth/login", { username: "rosa", password })).body,
    ).toMatchObject({ username: "rosa", role: "researcher" });

    // rosa becomes an owner; the last owner is never demoted.
    await accounts.getByLabel("Role of rosa").selectOption("owner");
    await page.getByText("“rosa” is now owner.").waitFor();
    await accounts.getByLabel("Role of rosa").selectOption("researcher");
    await page.getByText("“rosa” is now researcher.").waitFor();
    // admin is the only owner now: demoting them is refused, and the menu shows the role kept.
    const owners = (await suite.api.get<{ username: string; role: string }[]>("/api/v1/admin/admins")).body
      .filter((a) => a.role === "owner")
      .map((a) => a.username);
    expect(owners).toEqual(["admin"]);
    await accounts.getByLabel("Role of admin").selectOption("researcher");
    await page.getByText(/last owner/).waitFor();
    expect(await accounts.getByLabel("Role of admin").inputValue()).toBe("owner");
    await context.close();
  });
});
