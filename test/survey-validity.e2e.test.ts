import type { AdminSurvey, Experiment } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";

/**
 * The survey side of api.md "Data quality and validity" in Chromium: a researcher marks attention
 * checks in the console's editor; a participant's form sends how long it was open, and never receives
 * the expected answers.
 */
describe("attention checks and survey timing in Chromium", () => {
  const suite = consoleSuite("validity-e2e", "Validity test video");

  async function newPage() {
    const context = await suite.newContext();
    return context.newPage();
  }

  const surveysOf = async (experiment: Experiment) =>
    (await suite.api.get<AdminSurvey[]>(`/api/v1/admin/experiments/${experiment.id}/surveys`)).body;

  it("a researcher marks a single and a multi question as attention checks, and the editor shows them again", async () => {
    const experiment = await createArmStudy(suite.api, "Attention study", suite.videos, "running");
    const admin = await newPage();
    await signInToConsole(admin, suite.app.url);
    await admin.goto(`${suite.app.url}/admin/experiments/${experiment.id}/surveys/new`);
    await admin.getByLabel("Name", { exact: true }).fill("Checks");

    // A 5-point scale item that asks for "Agree": marked as a check with its expected answer chosen.
    await admin.getByRole("button", { name: "Remove question 1" }).click();
    await admin.getByRole("button", { name: "Add 5-point agreement scale" }).click();
    const q1 = admin.getByRole("group", { name: "Question 1" });
    await q1.getByLabel("Question text").fill("To show you are reading, choose Agree.");
    await q1.getByRole("checkbox", { name: "Attention check" }).check();

    // Saving without an expected answer says what is missing, under the select, and saves nothing.
    await admin.getByRole("button", { name: "Save survey" }).click();
    const expected = q1.getByLabel("Expected answer");
    await expect.poll(() => expected.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await expected.getAttribute("aria-describedby")) ?? "";
    const errorText = await admin.locator(`[id="${describedBy.split(" ").at(-1)}"]`).textContent();
    expect(errorText).toBe("Choose the answer an attentive participant gives, or untick Attention check.");
    await saveScreenshot(admin, "survey-attention-missing");
    await expected.selectOption({ label: "Agree (value 4)" });

    // A multi question whose check expects two of its options.
    await admin.getByRole("button", { name: "Add question" }).click();
    const q2 = admin.getByRole("group", { name: "Question 2" });
    await q2.getByLabel("Question text").fill("Tick Red and Blue.");
    await q2.getByLabel("Type").selectOption("multi");
    for (const [j, text] of ["Red", "Green", "Blue"].entries()) {
      if (j > 0) await q2.getByRole("button", { name: "Add option" }).click();
      await q2.getByLabel(`Option ${j + 1} text`).fill(text);
    }
    await q2.getByRole("checkbox", { name: "Attention check" }).check();
    const answers = q2.getByRole("group", { name: /Expected answers/ });
    await answers.getByRole("checkbox", { name: "Red (value 1)" }).check();
    await answers.getByRole("checkbox", { name: "Blue (value 3)" }).check();
    expect(await axeViolations(admin, "form")).toEqual([]);
    await saveScreenshot(admin, "survey-attention-editor");
    await admin.getByRole("button", { name: "Save survey" }).click();

    // Then the survey is stored with the expected values, and the list counts the checks.
    await admin.waitForURL(new RegExp(`/admin/experiments/${experiment.id}(#surveys)?$`));
    const row = admin.getByRole("region", { name: "Surveys" }).getByRole("row", { name: /Checks/ });
    await row.getByText("(2 attention checks)").waitFor();
    const [saved] = await surveysOf(experiment);
    expect(saved?.questions.map((q) => q.attention_answer)).toEqual([4, [1, 3]]);

    // Opened again, the editor shows both checks as they were chosen.
    await admin.goto(`${suite.app.url}/admin/experiments/${experiment.id}/surveys/${saved?.id}`);
    const again = admin.getByRole("group", { name: "Question 1" });
    await again.getByText("Attention check", { exact: true }).first().waitFor();
    expect(await again.getByRole("checkbox", { name: "Attention check" }).isChecked()).toBe(true);
    expect(await again.getByLabel("Expected answer").locator("option:checked").textContent()).toBe(
      "Agree (value 4)",
    );
    const multi = admin
      .getByRole("group", { name: "Question 2" })
      .getByRole("group", { name: /Expected answers/ });
    expect(await multi.getByRole("checkbox", { name: "Red (value 1)" }).isChecked()).toBe(true);
    expect(await multi.getByRole("checkbox", { name: "Green (value 2)" }).isChecked()).toBe(false);
    expect(await multi.getByRole("checkbox", { name: "Blue (value 3)" }).isChecked()).toBe(true);

    // The check's help leads to where its passes and failures show: the experiment's Participants list.
    await again.getByRole("link", { name: "Participants list" }).click();
    await admin.waitForURL(`${suite.app.url}/admin/experiments/${experiment.id}#participants-heading`);
    await admin.getByRole("region", { name: "Participants" }).waitFor();
  });

  it("the participant's form sends how long it was open and never receives the expected answer", async () => {
    // Given a running study whose active pre survey holds an attention check,
    const experiment = await createArmStudy(suite.api, "Timed study", suite.videos, "running");
    const created = await suite.api.post<AdminSurvey>(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "pre",
      name: "Timed",
      is_active: true,
      questions: [
        {
          id: "check",
          text: "Choose Blue.",
          type: "single",
          answers: [
            { id: "red", text: "Red", value: 1 },
            { id: "blue", text: "Blue", value: 2 },
          ],
          attention_answer: 2,
        },
      ],
    });
    expect(created.status).toBe(201);
    const page = await newPage();
    const pendingBodies: string[] = [];
    page.on("response", async (r) => {
      if (r.url().includes("/api/v1/surveys/pending")) pendingBodies.push(await r.text().catch(() => ""));
    });

    // when a participant answers it after a little over a second,
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=timed-1`);
    const dialog = page.getByRole("dialog", { name: "Before you start" });
    await dialog.getByRole("radio", { name: "Blue" }).waitFor();
    const shownAt = Date.now();
    await page.waitForTimeout(1200);
    await dialog.getByRole("radio", { name: "Blue" }).check();
    await dialog.getByRole("button", { name: "Submit" }).click();
    await dialog.waitFor({ state: "detached" });
    const submittedAt = Date.now();

    // then the stored response holds the time the form was open,
    const row = await suite.app.runtime
      .db("survey_responses")
      .where({ survey_id: created.body.id })
      .first<{ duration_ms: number | null }>("duration_ms");
    expect(row?.duration_ms).toBeGreaterThanOrEqual(1200);
    expect(row?.duration_ms).toBeLessThanOrEqual(submittedAt - shownAt + 1000);
    // and the pending survey the page received named no expected answer.
    expect(pendingBodies.some((b) => b.includes('"check"'))).toBe(true);
    expect(pendingBodies.join("")).not.toContain("attention");
  });
});
