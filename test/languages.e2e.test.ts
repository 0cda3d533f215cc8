import type { AdminSurvey, Experiment, Me } from "@feedlab/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

/** Issue 40 (api.md "Participant languages"): a study's languages, set in the console, and a participant's. */
describe("a study's languages (Chromium)", () => {
  const suite = e2eSuite();
  let experimentId: string;
  beforeAll(async () => {
    const study = await createStudy(suite.api, {
      name: "Languages",
      status: "running",
      weights: [1],
      videoCount: 1,
    });
    experimentId = study.experiment.id;
  });

  it("takes the study's languages on the experiment page, and a participant with a German browser joins in German", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    const section = page.getByRole("region", { name: "Languages" });
    const languages = section.getByLabel("Languages the study runs in");
    expect(await languages.inputValue()).toBe("en");

    // A tag the form cannot read is named, and nothing is saved.
    await languages.fill("en, Deutsch!");
    await section.getByRole("button", { name: "Save languages" }).click();
    await section.getByText('"Deutsch!" is not a language tag').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await languages.fill("en, de");
    await section.getByLabel("Default language").selectOption("en");
    await section.getByLabel(/Participants may change their language/).check();
    await section.getByRole("button", { name: "Save languages" }).click();
    await page.getByText("Languages saved.").waitFor();
    await saveScreenshot(page, "languages-section");
    const stored = (
      await suite.api.get<{ languages: string[]; default_language: string; language_switch: boolean }>(
        `/api/v1/admin/experiments/${experimentId}`,
      )
    ).body;
    expect([stored.languages, stored.default_language, stored.language_switch]).toEqual([
      ["en", "de"],
      "en",
      true,
    ]);
    await context.close();

    // A participant whose browser prefers German opens the study link and lands on the feed in German.
    const german = await suite.newContext({ locale: "de-DE" });
    const participant = await german.newPage();
    await participant.goto(`${suite.app.url}/join/${experimentId}?login_id=browser-de`);
    await participant.waitForURL((url) => !url.pathname.startsWith("/join"));
    const me = (await (await participant.request.get(`${suite.app.url}/api/v1/me`)).json()) as Me;
    expect([me.language, me.language_switch]).toEqual(["de", true]);
    await german.close();
    const csv = await suite.api.get(`/api/v1/admin/experiments/${experimentId}/participants?format=csv`);
    const [header = "", row = ""] = csv.text.trim().split("\r\n");
    expect(row.split(",")[header.split(",").indexOf("language")]).toBe("de");
  });

  it("writes the consent form and a survey side by side in English and German, marks each missing translation until written, and a German participant reads them in German", async () => {
    const { experiment } = await createStudy(suite.api, {
      name: "Zweisprachig",
      weights: [1],
      videoCount: 2,
    });
    await suite.api.patch<Experiment>(`/api/v1/admin/experiments/${experiment.id}`, {
      languages: ["en", "de"],
    });
    const context = await suite.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);

    // The consent form: one box per language; German left empty is marked, and the checklist says so.
    const consent = page.getByRole("group", { name: "Consent form", exact: true });
    await consent
      .getByRole("textbox", { name: "Consent form English (en)" })
      .fill("# Taking part\n\nYou will watch short videos.");
    await consent.getByText("Missing translation").waitFor();
    await page.getByRole("button", { name: "Save consent and completion" }).click();
    await page.getByText("Consent and completion saved.").waitFor();
    const checklist = page.getByRole("group", { name: "Before you start" });
    await checklist.getByText(/The consent text has no text in German \(de\)/).waitFor();
    await consent
      .getByRole("textbox", { name: "Consent form German (de)" })
      .fill("# Teilnahme\n\nSie sehen kurze Videos.");
    expect(await consent.getByText("Missing translation").count()).toBe(0);
    await page.getByRole("button", { name: "Save consent and completion" }).click();
    await checklist.getByText(/consent text/).waitFor({ state: "detached" });
    expect(await axeViolations(page)).toEqual([]);

    // A pre survey written side by side; an option left without German is marked and named at the start.
    const survey = await createSurvey(suite.api, experiment.id, {
      kind: "pre",
      name: "Mood",
      is_active: true,
      questions: [
        {
          id: "mood",
          text: "How do you feel?",
          type: "single",
          answers: [
            { id: "good", text: "Good", value: 1 },
            { id: "bad", text: "Bad", value: 0 },
          ],
        },
      ],
    });
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}/surveys/${survey.id}`);
    const q1 = page.getByRole("group", { name: "Question 1" });
    await q1.getByRole("textbox", { name: "Question text German (de)" }).fill("Wie fühlen Sie sich?");
    await q1.getByRole("textbox", { name: "Option 1 text, German (de)" }).fill("Gut");
    expect(await q1.getByText("Missing translation").count()).toBe(1);
    await saveScreenshot(page, "survey-editor-two-languages");
    expect(await axeViolations(page, "form")).toEqual([]);
    await page.getByRole("button", { name: "Save survey" }).click();
    await page.waitForURL(new RegExp(`/admin/experiments/${experiment.id}(#surveys)?$`));
    const missing = page.getByRole("group", { name: "Before you start" }).getByRole("listitem").filter({
      hasText: "question 1, option 2",
    });
    await missing.getByText(/German \(de\)/).waitFor();
    await missing.getByRole("link", { name: "Open the survey" }).click();
    await page
      .getByRole("group", { name: "Question 1" })
      .getByRole("textbox", { name: "Option 2 text, German (de)" })
      .fill("Schlecht");
    await page.getByRole("button", { name: "Save survey" }).click();
    await page.waitForURL(new RegExp(`/admin/experiments/${experiment.id}(#surveys)?$`));
    await page.getByRole("group", { name: "Before you start" }).getByText(/Ready/).waitFor();
    const saved = (await suite.api.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`)).body;
    expect(saved.questions[0]?.answers.map((o) => o.text)).toEqual([
      { en: "Good", de: "Gut" },
      { en: "Bad", de: "Schlecht" },
    ]);
    await context.close();
    const started = await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      status: "running",
    });
    expect(started.status).toBe(200);

    // A participant with a German browser reads the consent and the pre survey in German.
    const german = await suite.newContext({ locale: "de-DE" });
    const participant = await german.newPage();
    await participant.goto(`${suite.app.url}/join/${experiment.id}?login_id=leser-de`);
    // Their texts and Feedlab's own strings alike.
    await participant.getByRole("heading", { name: "Einwilligung zur Teilnahme" }).waitFor();
    await participant.getByRole("heading", { name: "Teilnahme", exact: true }).waitFor();
    expect(await participant.locator("html").getAttribute("lang")).toBe("de");
    expect(await axeViolations(participant)).toEqual([]);
    await participant.getByRole("button", { name: "Ich stimme zu" }).click();
    const dialog = participant.getByRole("dialog");
    await dialog.getByText("Wie fühlen Sie sich?").waitFor();
    await dialog.getByRole("radio", { name: "Gut" }).check();
    await saveScreenshot(participant, "participant-survey-de");
    await dialog.getByRole("button", { name: "Absenden" }).click();
    await participant.getByRole("list", { name: "Empfohlene Videos" }).getByRole("link").first().waitFor();
    await german.close();
    const wide = await suite.api.get(`/api/v1/admin/surveys/${survey.id}/responses/wide.csv`);
    const [header = "", row = ""] = wide.text.trim().split("\r\n");
    const cells = row.split(",");
    const columns = header.split(",");
    expect([cells[columns.indexOf("language")], cells[columns.indexOf("mood")]]).toEqual(["de", "1"]);
    const people = await suite.api.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`);
    const [head = "", reader = ""] = people.text.trim().split("\r\n");
    expect(reader.split(",")[head.split(",").indexOf("language")]).toBe("de");
  });

  it("shows Feedlab's own strings in the participant's language, and the language menu switches to Arabic, right to left, in the same session", async () => {
    await suite.api.patch(`/api/v1/admin/experiments/${experimentId}`, {
      languages: ["en", "de", "ar"],
      default_language: "en",
      language_switch: true,
    });
    const context = await suite.newContext({ locale: "de-DE" });
    const page = await context.newPage();
    await page.goto(`${suite.app.url}/join/${experimentId}?login_id=menu-de`);
    await page.waitForURL((url) => !url.pathname.startsWith("/join"));
    const html = page.locator("html");
    await page.getByRole("button", { name: "Studie verlassen" }).waitFor();
    expect([await html.getAttribute("lang"), await html.getAttribute("dir")]).toEqual(["de", "ltr"]);
    // A mark on the window survives only if the document does (no reload).
    const session = await page.evaluate(() => {
      (window as unknown as { languageMark: number }).languageMark = 1;
      return sessionStorage.getItem("feedlab.session_id");
    });

    const menu = page.getByRole("combobox", { name: "Sprache" });
    expect(await menu.locator("option").allTextContents()).toEqual(["English", "Deutsch", "العربية"]);
    await menu.selectOption("ar");
    const leave = page.getByRole("button", { name: "مغادرة الدراسة" });
    await leave.waitFor();
    expect([await html.getAttribute("lang"), await html.getAttribute("dir")]).toEqual(["ar", "rtl"]);
    await page.getByRole("combobox", { name: "اللغة" }).waitFor();
    // The top bar mirrors: home (the study's name) on the right, leaving on the left.
    const home = await page.getByRole("banner").getByRole("link", { name: "Languages" }).boundingBox();
    const leaving = await leave.boundingBox();
    expect(home && leaving && home.x > leaving.x).toBe(true);
    const me = (await (await page.request.get(`${suite.app.url}/api/v1/me`)).json()) as Me;
    expect(me.language).toBe("ar");
    // The same document, the same session.
    const after = await page.evaluate(() => [
      (window as unknown as { languageMark?: number }).languageMark,
      sessionStorage.getItem("feedlab.session_id"),
    ]);
    expect(after).toEqual([1, session]);
    await saveScreenshot(page, "participant-arabic");
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
