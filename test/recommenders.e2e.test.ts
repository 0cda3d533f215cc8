import type { Group } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { type FakeRecommender, startFakeRecommender } from "./harness/recommender-server.ts";

interface StoredRecommender {
  key: string;
  label: string;
  supports_feed: boolean;
  supports_watch: boolean;
  config: Record<string, unknown>;
}

describe("recommenders in the admin console", () => {
  const suite = e2eSuite();
  let page: Page;
  let fake: FakeRecommender;
  let study: StudyFixture;

  beforeAll(async () => {
    fake = await startFakeRecommender();
    study = await createStudy(suite.api, { weights: [1], name: "Algorithm study" });
    page = await suite.browser.newPage();
    await signInToConsole(page, suite.app.url);
  });
  afterAll(async () => {
    await fake?.close();
  });

  const row = (key: string) =>
    page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: key }) });

  it("lists the built-ins, registers an external recommender with its config, and edits it", async () => {
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Recommenders" }).click();
    await page.waitForURL(/\/admin\/recommenders$/);
    for (const key of ["random", "popularity", "recency", "similarity", "learned_model"]) {
      await row(key).waitFor();
      // Built-ins can be edited (texts) but never deleted.
      expect(
        await row(key)
          .getByRole("button", { name: /^Delete/ })
          .count(),
      ).toBe(0);
    }

    await page.getByRole("button", { name: "Register recommender" }).click();
    const dialog = page.getByRole("dialog", { name: "Register a recommender" });
    await dialog.getByLabel("Key").fill("Bad Key");
    await dialog.getByLabel("Label").fill("Lab service");
    await dialog.getByRole("button", { name: "Save recommender" }).click();
    await dialog.getByText("2-64 characters").waitFor();

    await dialog.getByLabel("Key").fill("lab-service");
    await dialog.getByLabel("URL").fill(`${fake.url}/recommend`);
    await dialog.getByLabel("Method").selectOption("GET");
    await dialog.getByLabel("Timeout (seconds)").fill("2.5");
    await dialog.getByLabel("Headers").fill("X-Api-Key: s3cret");
    await dialog
      .getByLabel("Body template (JSON)")
      .fill('{"user": "{user_id}", "n": "{limit}", "arm": "{variant}"}');
    await dialog.getByLabel("Video id path").fill("items.*.video_id");
    await dialog.getByLabel("Supports the watch page").check();
    await saveScreenshot(page, "recommenders-register");
    await dialog.getByRole("button", { name: "Save recommender" }).click();
    await dialog.waitFor({ state: "detached" });
    await row("lab-service").getByText("Lab service").waitFor();
    await saveScreenshot(page, "recommenders-list");

    const stored = await suite.api.get<StoredRecommender>("/api/v1/admin/recommenders/lab-service");
    expect(stored.body).toMatchObject({
      key: "lab-service",
      kind: "external_http",
      label: "Lab service",
      category: "external",
      supports_feed: true,
      supports_watch: true,
      config: {
        url: `${fake.url}/recommend`,
        method: "GET",
        timeout_seconds: 2.5,
        // Header values are write-only: answers name the header and hide its value.
        headers: { "X-Api-Key": "********" },
        body_template: { user: "{user_id}", n: "{limit}", arm: "{variant}" },
        video_id_path: "items.*.video_id",
      },
    });

    await row("lab-service").getByRole("button", { name: "Edit recommender lab-service" }).click();
    const edit = page.getByRole("dialog", { name: /Edit recommender/ });
    expect(await edit.getByLabel("Key").inputValue()).toBe("lab-service");
    // The saved value stays hidden; the form says it is set and kept unless replaced.
    expect(await edit.getByLabel("Headers").inputValue()).toBe("X-Api-Key: ********");
    const hint = edit.getByText("X-Api-Key has a saved value, hidden as ********");
    await hint.scrollIntoViewIfNeeded();
    await saveScreenshot(page, "recommenders-edit-hidden-header");
    await edit.getByLabel("Label").fill("Lab service v2");
    await edit.getByLabel("Timeout (seconds)").fill("4");
    await edit.getByRole("button", { name: "Save recommender" }).click();
    await edit.waitFor({ state: "detached" });
    await row("lab-service").getByText("Lab service v2").waitFor();
    const edited = await suite.api.get<StoredRecommender>("/api/v1/admin/recommenders/lab-service");
    expect(edited.body.label).toBe("Lab service v2");
    expect(edited.body.config).toMatchObject({ timeout_seconds: 4, headers: { "X-Api-Key": "********" } });
    const saved = (await suite.app.runtime
      .db("recommenders")
      .where({ key: "lab-service" })
      .first("config")) as {
      config: unknown;
    };
    const config = typeof saved.config === "string" ? JSON.parse(saved.config) : saved.config;
    expect(config.headers).toEqual({ "X-Api-Key": "s3cret" });

    await row("recency").getByRole("button", { name: "Edit recommender recency" }).click();
    const builtin = page.getByRole("dialog", { name: /Edit recommender/ });
    expect(await builtin.getByLabel("URL").count()).toBe(0);
    await builtin.getByLabel("Label").fill("Newest first");
    await builtin.getByRole("button", { name: "Save recommender" }).click();
    await builtin.waitFor({ state: "detached" });
    await row("recency").getByText("Newest first").waitFor();
  });

  it("offers in the Edit algorithm modal only recommenders that support each page, new ones after a reload", async () => {
    await suite.api.post("/api/v1/admin/recommenders", {
      key: "watch-only",
      kind: "external_http",
      label: "Watch only",
      supports_feed: false,
      supports_watch: true,
      config: { url: `${fake.url}/w` },
    });
    await page.goto(`${suite.app.url}/admin/experiments/${study.experiment.id}`);
    await page.getByRole("button", { name: "Edit algorithm" }).first().click();
    const dialog = page.getByRole("dialog", { name: /Edit algorithm/ });
    const feedOptions = await dialog
      .getByLabel("Feed algorithm")
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const watchOptions = await dialog
      .getByLabel("Watch algorithm")
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(feedOptions).toContain("lab-service");
    expect(feedOptions).not.toContain("watch-only");
    expect(watchOptions).toEqual(expect.arrayContaining(["lab-service", "watch-only", "random"]));

    // Registered after the page loaded: not offered until the next page load.
    await suite.api.post("/api/v1/admin/recommenders", {
      key: "late-comer",
      kind: "external_http",
      label: "Late",
      config: { url: `${fake.url}/late` },
    });
    expect(
      await dialog
        .getByLabel("Feed algorithm")
        .locator("option")
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
    ).not.toContain("late-comer");

    await dialog.getByLabel("Feed algorithm").selectOption("lab-service");
    await dialog.getByLabel("Watch algorithm").selectOption("watch-only");
    await dialog.getByLabel("Recommender parameters (JSON)").fill('{"lab-service": {"variant": "B"}}');
    await saveScreenshot(page, "recommenders-edit-algorithm");
    await dialog.getByRole("button", { name: "Save algorithm" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("cell", { name: "watch-only" }).waitFor();
    const group = await suite.api.get<Group>(`/api/v1/admin/groups/${study.groups[0]?.id}`);
    expect(group.body.algorithm_config).toEqual({ feed: "lab-service", watch: "watch-only" });
    expect(group.body.recommender_params).toEqual({ "lab-service": { variant: "B" } });

    await page.reload();
    await page.getByRole("button", { name: "Edit algorithm" }).first().click();
    const again = page.getByRole("dialog", { name: /Edit algorithm/ });
    expect(
      await again
        .getByLabel("Feed algorithm")
        .locator("option")
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
    ).toContain("late-comer");
    await again.getByRole("button", { name: "Cancel" }).click();
  });

  it("warns that arms still use a recommender before deleting it", async () => {
    await page.goto(`${suite.app.url}/admin/recommenders`);
    await row("lab-service").getByRole("button", { name: "Delete recommender lab-service" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete recommender?" });
    await confirm.getByText("Arms still use").waitFor();
    await confirm.getByText(/Algorithm study · Arm 1 \(feed\)/).waitFor();
    await saveScreenshot(page, "recommenders-delete-warning");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await confirm.waitFor({ state: "detached" });
    await expect.poll(() => row("lab-service").count()).toBe(0);
    expect((await suite.api.get("/api/v1/admin/recommenders/lab-service")).status).toBe(404);

    await row("late-comer").getByRole("button", { name: "Delete recommender late-comer" }).click();
    const unused = page.getByRole("dialog", { name: "Delete recommender?" });
    await unused.getByText("No arm uses it").waitFor();
    await unused.getByRole("button", { name: "Cancel" }).click();
  });
});
