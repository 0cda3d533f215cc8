import { readFile } from "node:fs/promises";
import type { AdminSurvey, Experiment } from "@feedlab/schemas";
import { parse } from "csv-parse/sync";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";
import { createSurvey, sampleAnswers } from "./harness/surveys.ts";

describe("the survey gate and the survey console in Chromium", () => {
  const suite = e2eSuite({
    // Autoplay without a gesture, so the watch page really starts playback on its own.
    browser: { args: ["--autoplay-policy=no-user-gesture-required"] },
    videos: [{ prefix: "survey-e2e", title: "Survey test video" }],
  });

  /** A study with one arm and the demo pool, in the given status. */
  async function study(status: "running" | "completed"): Promise<Experiment> {
    return createArmStudy(suite.api, `Survey study ${status}`, suite.videos, status);
  }

  async function participantContext(): Promise<BrowserContext> {
    return suite.newContext();
  }

  const feedList = (page: Page) => page.getByRole("list", { name: "Recommended videos" });
  const sessionIdOf = (page: Page) => page.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
  const responseCount = async (surveyId: string) =>
    (await suite.api.get<AdminSurvey>(`/api/v1/admin/surveys/${surveyId}`)).body.response_count;

  /** Answers the sample questions in the dialog, by label, the way a participant would. */
  async function answerSample(dialog: Locator, text = "All good.") {
    await dialog.getByRole("radio", { name: "Okay" }).check();
    await dialog.getByRole("checkbox", { name: "Food" }).check();
    await dialog.getByRole("checkbox", { name: "Science" }).check();
    await dialog.getByLabel("Anything else, in your words?").fill(text);
  }

  it("forced: a pre survey keeps the feed unmounted, cannot be closed, and lets the feed in once submitted", async () => {
    // Given a running study with an active pre survey,
    const experiment = await study("running");
    const survey = await createSurvey(suite.api, experiment.id, { kind: "pre", is_active: true });
    const page = await (await participantContext()).newPage();

    // when a participant joins,
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=forced-1`);
    await page.waitForURL(`${suite.app.url}/`);

    // then only the survey modal is shown: labelled, with focus inside, no close button, no feed.
    const dialog = page.getByRole("dialog", { name: "Before you start" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await feedList(page).count()).toBe(0);
    expect(await dialog.getByRole("button", { name: "Close" }).count()).toBe(0);
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    // Chromium closes a modal on a repeated Escape without user activation; the gate reopens it in the
    // dialog's `close` event, a task after the key press, so the check waits for that task.
    await expect.poll(() => dialog.isVisible()).toBe(true);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      expect(
        await dialog.evaluate(
          (d) => d.contains(document.activeElement) || document.activeElement === document.body,
        ),
      ).toBe(true);
    }
    await saveScreenshot(page, "surveys-forced-modal");

    // Submitting nothing shows what each question needs, and sends nothing.
    await dialog.getByRole("button", { name: "Submit" }).click();
    await dialog.getByText("Choose one option.").waitFor();
    await dialog.getByText("Choose between 1 and 2 options.").first().waitFor();
    await dialog.getByText("Please write an answer.").waitFor();
    expect(await responseCount(survey.id)).toBe(0);

    // The multi question enforces its maximum of 2 before submit: the third box is disabled.
    await dialog.getByRole("checkbox", { name: "Food" }).check();
    await dialog.getByRole("checkbox", { name: "Travel" }).check();
    expect(await dialog.getByRole("checkbox", { name: "Science" }).isDisabled()).toBe(true);
    await dialog.getByRole("checkbox", { name: "Travel" }).uncheck();

    // The radio group is keyboard usable: focus it, move with the arrows.
    await dialog.getByRole("radio", { name: "Good" }).focus();
    await page.keyboard.press("ArrowDown");
    expect(await dialog.getByRole("radio", { name: "Okay" }).isChecked()).toBe(true);
    await dialog.getByRole("checkbox", { name: "Science" }).check();
    await dialog.getByLabel("Anything else, in your words?").fill('Fine, "really"');
    await saveScreenshot(page, "surveys-forced-modal-answered");
    await dialog.getByRole("button", { name: "Submit" }).click();

    // Then the modal goes, the feed mounts, and the response is stored with the answers given.
    await dialog.waitFor({ state: "detached" });
    await feedList(page).getByRole("link").first().waitFor();
    expect(await responseCount(survey.id)).toBe(1);
    const csv: string[][] = parse(
      (await suite.api.get<string>(`/api/v1/admin/surveys/${survey.id}/responses/csv`)).text,
    );
    expect(csv.slice(1).map((row) => [row[1], row[4], row[7]])).toEqual([
      ["forced-1", "mood", ""],
      ["forced-1", "topics", ""],
      ["forced-1", "why", 'Fine, "really"'],
    ]);

    // A reload in the same session asks again and finds nothing due.
    await page.reload();
    await feedList(page).getByRole("link").first().waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
  });

  it("not forced: a post survey opens over the mounted feed, and closing it finishes a participant whose rule does not wait for the answer", async () => {
    // Given a running study whose participants are done after one session, with a code,
    const experiment = await study("running");
    await createSurvey(suite.api, experiment.id, { kind: "post", is_active: true });
    await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      completion: { after_sessions: 1, code: "CLOSED-1" },
    });
    const page = await (await participantContext()).newPage();

    // when a participant joins, the feed is mounted under a post survey that can be closed, and no
    // code is shown before it (api.md, Validity rules).
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=post-1`);
    await page.waitForURL(`${suite.app.url}/`);
    const dialog = page.getByRole("dialog", { name: "One last thing" });
    await dialog.waitFor();
    expect(await feedList(page).count()).toBe(1);
    expect(await page.getByTestId("completion-code").count()).toBe(0);
    await saveScreenshot(page, "surveys-not-forced-modal");

    // Closing it is recorded, which finishes the participant: the completion page follows.
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("heading", { name: "Thank you for taking part" }).waitFor();
    expect(await page.getByTestId("completion-code").textContent()).toBe("CLOSED-1");
    expect(await feedList(page).count()).toBe(0);
  });

  it("not forced: a closed survey stays hidden this session, returns the next, closes with Escape, and goes quietly on a 409", async () => {
    const experiment = await study("running");
    const survey = await createSurvey(suite.api, experiment.id, { kind: "inter_session", is_active: true });
    const context = await participantContext();
    const first = await context.newPage();
    await first.goto(`${suite.app.url}/join/${experiment.id}?login_id=inter-closer`);
    await feedList(first).waitFor();

    // The second session asks about the first; closed, it stays hidden on the next pages and reloads.
    const second = await context.newPage();
    await second.goto(`${suite.app.url}/`);
    const dialog = second.getByRole("dialog", { name: "About your last visit" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "detached" });
    await feedList(second).getByRole("link").first().click();
    await second.waitForURL(/\/watch\/[0-9a-f-]{36}$/);
    const pendingCheck = second.waitForResponse((r) => r.url().includes("/api/v1/surveys/pending"));
    await second.reload();
    await pendingCheck;
    await second.locator("video").waitFor();
    await second.waitForTimeout(300);
    expect(await second.getByRole("dialog").count()).toBe(0);

    // A new tab is a new session: the survey is asked again (about the second), and Escape closes it.
    const third = await context.newPage();
    await third.goto(`${suite.app.url}/`);
    const again = third.getByRole("dialog", { name: "About your last visit" });
    await again.waitFor();
    await third.keyboard.press("Escape");
    await again.waitFor({ state: "detached" });

    // A fourth tab asks about the third: answered meanwhile elsewhere, the submit answers 409 and the
    // modal goes quietly.
    const fourth = await context.newPage();
    await fourth.goto(`${suite.app.url}/`);
    const last = fourth.getByRole("dialog", { name: "About your last visit" });
    await last.waitFor();
    await answerSample(last);
    const elsewhere = await context.request.post(`${suite.app.url}/api/v1/surveys/${survey.id}/responses`, {
      data: {
        session_id: await sessionIdOf(fourth),
        about_session_id: await sessionIdOf(third),
        answers: sampleAnswers(),
      },
    });
    expect(elsewhere.status()).toBe(201);
    const conflict = fourth.waitForResponse((r) => r.url().includes(`/surveys/${survey.id}/responses`));
    await last.getByRole("button", { name: "Submit" }).click();
    expect((await conflict).status()).toBe(409);
    await last.waitFor({ state: "detached" });
    expect(await fourth.getByRole("alert").count()).toBe(0);
    expect(await responseCount(survey.id)).toBe(1);
    await feedList(fourth).waitFor();
  });

  it("inter-session: a new tab asks about the previous visit on the watch page, and playback waits", async () => {
    const experiment = await study("running");
    const survey = await createSurvey(suite.api, experiment.id, { kind: "inter_session", is_active: true });
    const context = await participantContext();
    const first = await context.newPage();
    await first.goto(`${suite.app.url}/join/${experiment.id}?login_id=inter-1`);
    await feedList(first).getByRole("link").first().waitFor();
    // The first visit has no previous one: nothing is due.
    expect(await first.getByRole("dialog").count()).toBe(0);
    const previousSession = await sessionIdOf(first);

    // A new tab (a new session) opens a video directly: the survey about the first visit appears,
    // and the video that autoplays is held paused while it is open.
    const second = await context.newPage();
    await second.goto(`${suite.app.url}/watch/${suite.videos[0]?.id}`);
    const dialog = second.getByRole("dialog", { name: "About your last visit" });
    await dialog.waitFor();
    const video = second.locator("video");
    await video.waitFor();
    await second.waitForTimeout(1000);
    expect(await video.evaluate((v: HTMLVideoElement) => v.paused)).toBe(true);
    await saveScreenshot(second, "surveys-inter-session-watch");

    await answerSample(dialog);
    await dialog.getByRole("button", { name: "Submit" }).click();
    await dialog.waitFor({ state: "detached" });
    const stored = await suite.app.runtime.db("survey_responses").where({ survey_id: survey.id });
    expect(stored.map((r: { about_session_id: string }) => r.about_session_id)).toEqual([previousSession]);

    // With the survey gone, the video plays.
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 })
      .toBeGreaterThan(0.3);
  });

  it("a researcher builds, activates and exports a survey in the console", async () => {
    const experiment = await study("running");
    const admin = await (await suite.newContext({ acceptDownloads: true })).newPage();
    await signInToConsole(admin, suite.app.url);
    await admin.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const section = admin.getByRole("region", { name: "Surveys" });
    await section.getByText("No pre-study surveys.").waitFor();

    // Build: kind, name, a single question with Likert values, a multi question, a text question.
    await section.getByRole("button", { name: "New survey" }).click();
    await admin.waitForURL(/\/surveys\/new$/);
    await admin.getByLabel("Kind").selectOption("pre");
    await admin.getByLabel("Name", { exact: true }).fill("Baseline questionnaire");
    const q1 = admin.getByRole("group", { name: "Question 1" });
    await q1.getByLabel("Question text").fill("How often do you watch videos online?");
    await q1.getByLabel("Option 1 text").fill("Rarely");
    await q1.getByRole("button", { name: "Add option" }).click();
    await q1.getByLabel("Option 2 text").fill("Daily");
    await q1.getByLabel("Option 2 value").fill("5");

    await admin.getByRole("button", { name: "Add question" }).click();
    const q2 = admin.getByRole("group", { name: "Question 2" });
    await q2.getByLabel("Question text").fill("Which devices do you use?");
    await q2.getByLabel("Type").selectOption("multi");
    await q2.getByLabel("Option 1 text").fill("Phone");
    await q2.getByRole("button", { name: "Add option" }).click();
    await q2.getByLabel("Option 2 text").fill("Laptop");
    await q2.getByLabel("Minimum selections").fill("3");

    await admin.getByRole("button", { name: "Add question" }).click();
    const q3 = admin.getByRole("group", { name: "Question 3" });
    await q3.getByLabel("Question text").fill("What do you expect from this study?");
    await q3.getByLabel("Type").selectOption("text");
    await q3.getByRole("checkbox", { name: "Participants must answer this question" }).uncheck();
    // A 5-point agreement scale comes with its labels and values 1 to 5.
    await admin.getByRole("button", { name: "Add 5-point agreement scale" }).click();
    const q4 = admin.getByRole("group", { name: "Question 4" });
    await q4.getByLabel("Question text").fill("The videos suited me.");
    expect(await q4.getByLabel("Option 5 text").inputValue()).toBe("Strongly agree");

    // The editor shows the shape rules before saving, in the words of its own labels, under the field.
    await admin.getByRole("button", { name: "Save survey" }).click();
    const minimum = q2.getByLabel("Minimum selections");
    await expect.poll(() => minimum.getAttribute("aria-invalid")).toBe("true");
    expect(
      await admin.locator(`[id="${await minimum.getAttribute("aria-describedby")}"]`).textContent(),
    ).toBe("Minimum selections cannot be more than the number of options.");
    await saveScreenshot(admin, "surveys-editor-shape-error");
    await q2.getByLabel("Minimum selections").fill("1");
    await q2.getByLabel("Maximum selections").fill("2");

    // The preview is the participant's form; the optional question says so, and nothing is saved.
    await admin.getByRole("button", { name: "Preview" }).click();
    const preview = admin.getByRole("dialog", { name: "Preview: what participants see" });
    await preview.getByText("What do you expect from this study? (optional)").waitFor();
    await preview.getByRole("radio", { name: "Strongly agree" }).waitFor();
    expect(await axeViolations(admin, "dialog")).toEqual([]);
    await saveScreenshot(admin, "surveys-editor-preview");
    await preview.getByRole("button", { name: "Close" }).click();
    await admin.getByRole("button", { name: "Save survey" }).click();

    // Back on the experiment page: listed under its kind with counts; then activated.
    await admin.waitForURL(new RegExp(`/admin/experiments/${experiment.id}(#surveys)?$`));
    const row = section.getByRole("row", { name: /Baseline questionnaire/ });
    await row.waitFor();
    expect(await row.getByRole("cell").allTextContents()).toEqual(expect.arrayContaining(["4", "0"]));
    await row.getByRole("button", { name: "Activate" }).click();
    await row.getByText("Active", { exact: true }).waitFor();
    await saveScreenshot(admin, "surveys-console-list");

    const [created] = (
      await suite.api.get<AdminSurvey[]>(`/api/v1/admin/experiments/${experiment.id}/surveys`)
    ).body;
    expect(created).toMatchObject({
      kind: "pre",
      name: "Baseline questionnaire",
      is_active: true,
      question_count: 4,
    });
    expect(
      created?.questions.map((q) => [
        q.type,
        q.minSelect,
        q.maxSelect,
        q.answers.map((o) => o.value),
        q.required,
      ]),
    ).toEqual([
      ["single", null, null, [1, 5], true],
      ["multi", 1, 2, [1, 2], true],
      ["text", null, null, [], false],
      ["single", null, null, [1, 2, 3, 4, 5], true],
    ]);

    // A second pre survey cannot be activated while this one is.
    await createSurvey(suite.api, experiment.id, { kind: "pre", name: "Second pre" });
    await admin.reload();
    await section
      .getByRole("row", { name: /Second pre/ })
      .getByRole("button", { name: "Activate" })
      .click();
    await admin.getByRole("alert").filter({ hasText: "is active in this experiment" }).waitFor();

    // A participant answers it; the researcher downloads the CSV.
    const participant = await (await participantContext()).newPage();
    await participant.goto(`${suite.app.url}/join/${experiment.id}?login_id=console-1`);
    const dialog = participant.getByRole("dialog", { name: "Before you start" });
    await dialog.getByRole("radio", { name: "Daily" }).check();
    await dialog.getByRole("checkbox", { name: "Laptop" }).check();
    // An answer a spreadsheet-safe export would have changed ("'-3"): the console's download is exact.
    await dialog.getByLabel("What do you expect from this study?").fill("-3");
    await dialog.getByRole("radio", { name: "Agree", exact: true }).check();
    await dialog.getByRole("button", { name: "Submit" }).click();
    await feedList(participant).waitFor();

    await admin.reload();
    const download = admin.waitForEvent("download");
    await section
      .getByRole("row", { name: /Baseline questionnaire/ })
      .getByRole("button", { name: "Download CSV" })
      .click();
    const file = await (await download).path();
    const rows: string[][] = parse(await readFile(file, "utf8"));
    expect(rows[0]).toEqual([
      "response_id",
      "user_login_id",
      "about_session_id",
      "created_at",
      "question_id",
      "question_text",
      "selections",
      "text_input",
    ]);
    expect(rows.slice(1).map((r) => [r[1], r[5], JSON.parse(r[6] ?? "[]"), r[7]])).toEqual([
      ["console-1", "How often do you watch videos online?", [{ id: "a2", text: "Daily", value: 5 }], ""],
      ["console-1", "Which devices do you use?", [{ id: "a2", text: "Laptop", value: 2 }], ""],
      ["console-1", "What do you expect from this study?", [], "-3"],
      ["console-1", "The videos suited me.", [{ id: "a4", text: "Agree", value: 4 }], ""],
    ]);
  });
});
