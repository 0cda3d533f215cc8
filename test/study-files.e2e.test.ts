import path from "node:path";
import type { Experiment, FeedPage, Group, JoinResult } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { downloadedBytes, resultsDir, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";

/**
 * api.md "Study definitions and packages" in the console, in Chromium: a researcher exports a study
 * from one server, edits the file, and sets up the same study on another server by importing it, reading
 * the plan before applying it; a broken file says where it is broken. Two embedded servers, so the
 * study crosses servers as it does between labs.
 */
describe("a study moves between servers as a file, through the console", () => {
  /** Server A, where the study starts, with the demo videos. */
  const suite = e2eSuite({ videos: [{ prefix: "study-file", title: "Study file video" }] });
  let serverB: TestApp;
  let adminB: Client;
  let experimentA: Experiment;
  /** The study file as Export study downloaded it from server A. */
  let exported = "";
  /** The file as the researcher edited it, and the experiment importing it made on server B. */
  let edited = "";
  let experimentB = "";

  beforeAll(async () => {
    serverB = await startTestApp("pglite");
    adminB = await serverB.admin();

    // Given a study on server A: two arms, a pool of the demo videos and an active pre survey.
    experimentA = (
      await suite.api.post<Experiment>("/api/v1/admin/experiments", {
        name: "Feed order study",
        description: "Does the order of the feed change what people watch?",
      })
    ).body;
    for (const [name, key] of [
      ["Control", "recency"],
      ["Treatment", "random"],
    ]) {
      const arm = await suite.api.post(`/api/v1/admin/experiments/${experimentA.id}/groups`, {
        name,
        algorithm_config: { feed: key, watch: key },
        ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
      });
      expect(arm.status).toBe(201);
    }
    await suite.api.put(`/api/v1/admin/experiments/${experimentA.id}/videos`, {
      video_ids: suite.videos.map((v) => v.id),
    });
    const survey = await suite.api.post(`/api/v1/admin/experiments/${experimentA.id}/surveys`, {
      kind: "pre",
      name: "Background",
      is_active: true,
      questions: [
        {
          id: "often",
          text: "How often do you watch online videos?",
          type: "single",
          answers: [
            { id: "daily", text: "Daily", value: 1 },
            { id: "weekly", text: "Weekly", value: 2 },
          ],
        },
      ],
    });
    expect(survey.status).toBe(201);
  });

  afterAll(async () => {
    await serverB?.stop();
  });

  /** A page of its own browser context: both servers are on 127.0.0.1, whose cookies ignore the port. */
  async function consoleOn(server: TestApp): Promise<Page> {
    const context = await suite.newContext({
      acceptDownloads: true,
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    await signInToConsole(page, server.url);
    return page;
  }

  it("a researcher exports the study from the experiment's page as a YAML file", async () => {
    const page = await consoleOn(suite.app);
    await page.goto(`${suite.app.url}/admin/experiments/${experimentA.id}`);
    const section = page.getByRole("region", { name: "Study file" });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      section.getByRole("link", { name: "Export study" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.ya?ml$/);
    exported = (await downloadedBytes(download)).toString("utf8");
    expect(exported).toMatch(/^feedlab_study: 1$/m);
    expect(exported).toContain("Treatment");
    for (const v of suite.videos) expect(exported).toContain(v.external_id);

    // The package link asks for pseudonyms only when the researcher ticks the box.
    const packageLink = section.getByRole("link", { name: "Download package" });
    expect(await packageLink.getAttribute("href")).toBe(
      `/api/v1/admin/experiments/${experimentA.id}/package`,
    );
    await section
      .getByRole("checkbox", { name: "Replace logins with pseudonyms (for a public deposit)" })
      .check();
    expect(await packageLink.getAttribute("href")).toBe(
      `/api/v1/admin/experiments/${experimentA.id}/package?pseudonymize=true`,
    );
    const [zip] = await Promise.all([page.waitForEvent("download"), packageLink.click()]);
    expect((await downloadedBytes(zip)).subarray(0, 2).toString("latin1")).toBe("PK");
    await page.context().close();
  });

  it("a broken file shows the line and column of each problem, and nothing is applied", async () => {
    expect(exported).not.toBe("");
    // The second arm's weight made negative: a schema problem on a line the test knows.
    const lines = exported.split("\n");
    const treatment = lines.findIndex((l) => /name: Treatment$/.test(l));
    const weightLine = lines.findIndex((l, i) => i > treatment && /^\s+weight: /.test(l));
    expect(weightLine).toBeGreaterThan(treatment);
    lines[weightLine] = (lines[weightLine] as string).replace(/weight: .*/, "weight: -1");
    const before = (await adminB.get<Experiment[]>("/api/v1/admin/experiments")).body.length;

    const page = await consoleOn(serverB);
    await page.getByRole("button", { name: "Import study" }).click();
    const dialog = page.getByRole("dialog", { name: "Import study" });
    await dialog.getByLabel("Study document").fill(lines.join("\n"));
    await dialog.getByRole("button", { name: "Check" }).click();
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(text).toMatch(new RegExp(`line ${weightLine + 1}, column \\d+: arms\\[1\\]\\.weight: `));
    expect(await dialog.getByRole("button", { name: "Apply" }).count()).toBe(0);
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await saveScreenshot(page, "study-file-import-error");

    // "Show line" puts the caret on the broken line of the document.
    await dialog.getByRole("button", { name: `Show line ${weightLine + 1}` }).click();
    const caretLine = await dialog
      .getByLabel("Study document")
      .evaluate((el: HTMLTextAreaElement) => el.value.slice(0, el.selectionStart).split("\n").length);
    expect(caretLine).toBe(weightLine + 1);

    // A file that is not a study file is refused before anything is sent.
    await dialog.getByLabel("Study file").setInputFiles({
      name: "events.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("a,b\n1,2\n"),
    });
    await dialog.getByText(/Choose a \.yaml, \.yml or \.json file/).waitFor();
    expect((await adminB.get<Experiment[]>("/api/v1/admin/experiments")).body.length).toBe(before);
    await page.context().close();
  });

  it("another server's console imports the edited file as a new experiment, after showing the plan", async () => {
    expect(exported).not.toBe("");
    // The researcher changes the treatment arm's feed from random to popularity, in the text.
    expect(exported.match(/feed: random$/gm)).toHaveLength(1);
    edited = exported.replace(/feed: random$/m, "feed: popularity");

    const page = await consoleOn(serverB);
    await page.getByRole("button", { name: "Import study" }).click();
    const dialog = page.getByRole("dialog", { name: "Import study" });
    await dialog.getByLabel("Study file").setInputFiles({
      name: "feed-order-study.yaml",
      mimeType: "application/yaml",
      buffer: Buffer.from(edited),
    });
    await expect.poll(() => dialog.getByLabel("Study document").inputValue()).toBe(edited);
    await dialog.getByRole("button", { name: "Check" }).click();

    // The plan: everything is new on server B, the videos of the pool included.
    const plan = dialog.getByRole("table", { name: "What applying the file does" });
    await plan.waitFor();
    await plan.getByRole("row", { name: /Arm\s*Treatment\s*Create/ }).waitFor();
    await plan.getByRole("row", { name: /Arm\s*Control\s*Create/ }).waitFor();
    await plan.getByRole("row", { name: /Survey\s*Background\s*Create/ }).waitFor();
    for (const v of suite.videos)
      await plan.getByRole("row", { name: new RegExp(`${v.external_id}\\s*Create`) }).waitFor();
    await plan.scrollIntoViewIfNeeded();
    await saveScreenshot(page, "study-file-import-plan");
    // The experiment, its pool, 2 arms, 3 videos and the survey are new.
    await plan.getByRole("row", { name: /Video pool\s*Feed order study\s*Create/ }).waitFor();
    expect(await dialog.getByRole("status").textContent()).toBe("8 to create.");
    expect(await axeViolations(page, "dialog")).toEqual([]);

    // Applying opens the new experiment, and says what was done.
    await dialog.getByRole("button", { name: "Apply" }).click();
    await page.getByText(/^The study file is applied: (8 created|7 created, 1 updated)\.$/).waitFor();
    await page.getByRole("heading", { name: "Feed order study", level: 1 }).waitFor();
    const experimentId = new URL(page.url()).pathname.split("/").at(-1) as string;
    experimentB = experimentId;
    expect(experimentId).not.toBe(experimentA.id);

    // Then server B's experiment has the changed arm,
    const groups = (await adminB.get<Group[]>(`/api/v1/admin/experiments/${experimentId}/groups`)).body;
    expect(groups.map((g) => [g.name, g.algorithm_config.feed])).toEqual([
      ["Control", "recency"],
      ["Treatment", "popularity"],
    ]);
    // and once running (a study file never starts a study), that arm's participants get its feed.
    expect(
      (await adminB.patch(`/api/v1/admin/experiments/${experimentId}`, { status: "running" })).status,
    ).toBe(200);
    const treatment = groups.find((g) => g.name === "Treatment") as Group;
    let served: FeedPage | null = null;
    for (let i = 0; i < 4 && !served; i++) {
      const participant = serverB.client();
      const joined = await participant.post<JoinResult>("/api/v1/participants/join", {
        experiment_id: experimentId,
        login_id: `imported-${i}`,
      });
      expect(joined.status).toBe(200);
      if (joined.body.group_id !== treatment.id) continue;
      const sessionId = crypto.randomUUID();
      await participant.post("/sessions", { session_id: sessionId });
      const feed = await participant.get<FeedPage>(`/feed?session_id=${sessionId}`);
      expect(feed.status).toBe(200);
      served = feed.body;
    }
    expect(served?.recommender).toBe("popularity");
    expect(served?.items).toHaveLength(suite.videos.length);
    await page.context().close();
  });

  it("importing into the experiment says when nothing would change, refuses to drop an arm with participants, and applies an edit", async () => {
    expect(experimentB).not.toBe("");
    const page = await consoleOn(serverB);
    await page.goto(`${serverB.url}/admin/experiments/${experimentB}`);
    await page
      .getByRole("region", { name: "Study file" })
      .getByRole("button", { name: "Import study into this experiment" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Import a study file into “Feed order study”" });
    const check = async (text: string) => {
      await dialog.getByLabel("Study document").fill(text);
      await dialog.getByRole("button", { name: "Check" }).click();
      await dialog.getByRole("status").waitFor();
    };

    // The same file again: nothing to do, and nothing to apply.
    await check(edited);
    await dialog.getByText("Nothing would change: this experiment already matches the file.").waitFor();
    expect(await dialog.getByRole("status").textContent()).toMatch(/^\d+ unchanged\.$/);
    expect(await dialog.getByRole("button", { name: "Apply" }).count()).toBe(0);
    // The unchanged resources are listed on request only (a pool can hold thousands of videos).
    expect(await dialog.getByRole("table").count()).toBe(0);
    await dialog.getByRole("button", { name: /^Show the \d+ unchanged$/ }).click();
    await dialog.getByRole("row", { name: /Arm\s*Treatment\s*Unchanged/ }).waitFor();

    // Without the treatment arm, which has a participant: refused, with the reason, and no apply.
    const lines = edited.split("\n");
    const start = lines.findIndex((l) => /^ {2}- name: Treatment$/.test(l));
    const end = lines.findIndex((l, i) => i > start && /^(\S| {2}- )/.test(l));
    expect(start).toBeGreaterThan(0);
    await check([...lines.slice(0, start), ...lines.slice(end)].join("\n"));
    const refused = dialog.getByRole("row", { name: /Arm\s*Treatment\s*Refused/ });
    await refused.waitFor();
    // It heads the table, and only changes are listed.
    expect(await dialog.getByRole("row").nth(1).textContent()).toMatch(/Refused/);
    expect(await dialog.getByRole("row").count()).toBe(2);
    expect(await refused.textContent()).toMatch(/assigned to this arm/);
    const alert = (await dialog.getByRole("alert").textContent())?.replace(/\s+/g, " ");
    expect(alert).toBe(
      "A change is refused, so nothing can be applied. Change the file (or the experiment) and check again.",
    );
    expect(await dialog.getByRole("button", { name: "Apply" }).count()).toBe(0);
    expect(await axeViolations(page, "dialog")).toEqual([]);
    // The experiment's page is long: the picture is of the dialog, scrolled to the refusal.
    await refused.scrollIntoViewIfNeeded();
    await dialog.screenshot({ path: path.join(resultsDir, "study-file-import-refused.png") });

    // The control arm's weight doubled: one update, applied, and the page shows the arm as it is now.
    const control = lines.findIndex((l) => /^ {2}- name: Control$/.test(l));
    const weight = lines.findIndex((l, i) => i > control && /^ {4}weight: 1$/.test(l));
    expect(weight).toBeGreaterThan(control);
    lines[weight] = "    weight: 2";
    await check(lines.join("\n"));
    await dialog.getByRole("row", { name: /Arm\s*Control\s*Update\s*weight/ }).waitFor();
    await dialog.getByRole("button", { name: "Apply" }).click();
    await page.getByText("The study file is applied: 1 updated.").waitFor();
    await dialog.waitFor({ state: "detached" });
    const groups = (await adminB.get<Group[]>(`/api/v1/admin/experiments/${experimentB}/groups`)).body;
    expect(groups.map((g) => [g.name, g.weight])).toEqual([
      ["Control", 2],
      ["Treatment", 1],
    ]);
    await page.context().close();
  });
});
