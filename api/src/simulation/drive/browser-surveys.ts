import type { PendingSurvey } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { pageOf } from "./browser-page.ts";
import { type JourneyInput, type JourneyRecord, problem } from "./journey.ts";

/** Answers every survey dialog showing now; records each, and answers how many there were. */
export async function answerSurveys(
  page: Page,
  record: JourneyRecord,
  session: number,
  when: "start" | "after",
  input: JourneyInput,
): Promise<number> {
  let answered = 0;
  for (let i = 0; i < 5; i++) {
    const dialog = page.getByRole("dialog");
    const open = await dialog
      .waitFor({ timeout: i === 0 ? 2500 : 1500 })
      .then(() => true)
      .catch(() => false);
    if (!open) return answered;
    const sessionId = await page.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
    const pending = await page.request.get(`/api/v1/surveys/pending?session_id=${sessionId}`);
    const body = (await pending.json().catch(() => null)) as PendingSurvey;
    if (body === null) return answered;
    const { survey } = body;
    record.surveys.push({ id: survey.id, name: survey.name, kind: survey.kind, session, when });
    if (pageOf(page.url()) === "watch") {
      const playing = await page
        .locator("video")
        .first()
        .evaluate((v: HTMLVideoElement) => !v.paused)
        .catch(() => false);
      if (playing)
        problem(
          record,
          "watch",
          "survey_over_playback",
          `The survey "${survey.name}" opened over a playing video.`,
        );
    }
    const { answers } = input.model.answerSurvey(survey.questions);
    for (const [index, q] of survey.questions.entries()) {
      const answer = answers.find((a) => a.questionId === q.id);
      if (!answer) continue;
      if (q.type === "text") {
        await dialog.locator(`[id$="-q${index}"]`).fill(answer.textInput ?? "");
        continue;
      }
      const item = dialog.locator(`[data-question="${index}"]`);
      for (const optionId of answer.selections) {
        const option = q.answers.find((o) => o.id === optionId);
        if (option) await item.getByLabel(option.text, { exact: true }).check();
      }
    }
    await dialog.getByRole("button", { name: "Submit", exact: true }).click();
    await dialog.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
    answered += 1;
  }
  return answered;
}
