import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startTestApp, type TestApp } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { launchBrowser, saveScreenshot, signInToConsole } from "./harness/browser.ts";

describe("admin accounts in the console (Chromium)", () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp("pglite");
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("adds an admin, changes the password with the current one, and removes the other admin", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInToConsole(page, app.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Admins" }).click();
    await page.getByRole("heading", { name: "Admins", level: 1 }).waitFor();

    // The form names what is wrong, on its fields.
    const admins = page.getByRole("region", { name: "Admins" });
    await admins.getByLabel("Username").fill("bea");
    await admins.getByLabel("Password").fill("short");
    await admins.getByRole("button", { name: "Add admin" }).click();
    await admins.getByText("The password needs at least 8 characters.").waitFor();
    await admins.getByLabel("Password").fill("bea-password-1");
    await admins.getByRole("button", { name: "Add admin" }).click();
    await admins.getByRole("row", { name: /bea/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "admins-console");

    // A wrong current password is named on its field; the right one changes it.
    const password = page.getByRole("region", { name: "Change your password" });
    await password.getByLabel("Current password").fill("not-the-password");
    await password.getByLabel("New password", { exact: true }).fill("a-new-password-1");
    await password.getByLabel("New password again").fill("a-new-password-1");
    await password.getByRole("button", { name: "Change password" }).click();
    await password.getByText("This is not your current password.").waitFor();
    await password.getByLabel("Current password").fill(ADMIN.password);
    await password.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed.").waitFor();
    const oldLogin = await app.client().post("/api/v1/auth/login", ADMIN);
    expect(oldLogin.status).toBe(401);

    // Removing bea asks first; she is gone and cannot sign in.
    await admins.getByRole("button", { name: "Remove admin bea" }).click();
    await page.getByRole("dialog", { name: "Remove admin?" }).getByRole("button", { name: "Remove" }).click();
    await admins.getByRole("row", { name: /bea/ }).waitFor({ state: "detached" });
    expect(
      (await app.client().post("/api/v1/auth/login", { username: "bea", password: "bea-password-1" })).status,
    ).toBe(401);
    // Alone now: the last admin's Remove is disabled (and the server refuses it anyway).
    expect(await admins.getByRole("button", { name: `Remove admin ${ADMIN.username}` }).isDisabled()).toBe(
      true,
    );

    // The audit log shows what happened, newest first, without the passwords.
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit" }).click();
    const rows = page.getByRole("region", { name: "Entries" }).getByRole("row");
    await rows.filter({ hasText: "Removed an admin" }).filter({ hasText: "bea" }).waitFor();
    await rows.filter({ hasText: "Changed their password" }).waitFor();
    await rows.filter({ hasText: "Added an admin" }).waitFor();
    expect(await page.content()).not.toContain("bea-password-1");
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "admins-audit");
    await context.close();
  });
});
