import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ADMIN } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";

describe("admin accounts in the console (Chromium)", () => {
  const suite = e2eSuite();

  it("keeps the admin signed in when a page on another port of the same host posts a sign-out with their cookie", async () => {
    const context = await suite.newContext();
    const console = await context.newPage();
    await signInToConsole(console, suite.app.url);
    const session = (await context.cookies(suite.app.url)).find((c) => c.name === "feedlab_admin");
    expect(session).toBeDefined();
    // The same site (another port of the same host): SameSite=Lax lets the cookie go with it.
    const logout = `${suite.app.url}/api/v1/auth/logout`;
    const sibling = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(
        `<!doctype html><title>Sibling</title><script>fetch(${JSON.stringify(logout)}, {method: "POST", mode: "no-cors", credentials: "include"}).finally(() => { document.title = "sent"; });</script>`,
      );
    });
    await new Promise<void>((resolve) => sibling.listen(0, "127.0.0.1", resolve));
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(sibling.address() as AddressInfo).port}/`);
      // The page cannot read the answer (Cross-Origin-Resource-Policy), but the server has given it.
      await page.waitForFunction(() => document.title === "sent");
      const same = suite.app.client();
      same.cookies.set("feedlab_admin", session?.value ?? "");
      expect((await same.get("/api/v1/auth/me")).status).toBe(200);
    } finally {
      sibling.close();
      await context.close();
    }
  });

  it("tells an admin who opened the console under another address to open it at the public URL", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 768 } });
    // The console served under another name, as a second name of the site would serve it.
    const alias = "http://feedlab-alias.test";
    await context.route(`${alias}/**`, async (route) => {
      const response = await route.fetch({ url: route.request().url().replace(alias, suite.app.url) });
      await route.fulfill({ response });
    });
    const page = await context.newPage();
    await page.goto(`${alias}/admin/login`);
    await page.getByLabel("Username").fill(ADMIN.username);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page
      .getByText(
        `This page is at ${alias}, but Feedlab takes changes only from its pages at ${suite.app.url} (FEEDLAB_PUBLIC_URL). Open Feedlab at ${suite.app.url}.`,
      )
      .waitFor();
    expect(await context.cookies(suite.app.url)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "console-sign-in-other-origin");
    await page.setViewportSize({ width: 390, height: 844 });
    await saveScreenshot(page, "console-sign-in-other-origin-390");
    await context.close();
  });

  it("adds an account, changes the password with the current one, and removes the other account", async () => {
    const context = await suite.newContext();
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("heading", { name: "Accounts", level: 1 }).waitFor();

    // The form names what is wrong, on its fields.
    const admins = page.getByRole("region", { name: "Accounts" });
    await admins.getByLabel("Username").fill("bea");
    await admins.getByLabel("Password").fill("short");
    await admins.getByRole("button", { name: "Add account" }).click();
    await admins
      .getByText("The password needs at least 8 characters, or leave it empty to generate one.")
      .waitFor();
    await admins.getByLabel("Password").fill("bea-password-1");
    await admins.getByRole("button", { name: "Add account" }).click();
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
    const oldLogin = await suite.app.client().post("/api/v1/auth/login", ADMIN);
    expect(oldLogin.status).toBe(401);

    // Removing bea asks first; she is gone and cannot sign in.
    await admins.getByRole("button", { name: "Remove account bea" }).click();
    await page
      .getByRole("dialog", { name: "Remove account?" })
      .getByRole("button", { name: "Remove" })
      .click();
    await admins.getByRole("row", { name: /bea/ }).waitFor({ state: "detached" });
    expect(
      (await suite.app.client().post("/api/v1/auth/login", { username: "bea", password: "bea-password-1" }))
        .status,
    ).toBe(401);
    // Alone now: the last admin's Remove is disabled (and the server refuses it anyway).
    expect(await admins.getByRole("button", { name: `Remove account ${ADMIN.username}` }).isDisabled()).toBe(
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
