import { checkAnswers, checkSurveyShape, ResponseCreate } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { compileBody } from "../http/validation.ts";
import { createRandom } from "../system/random.ts";
import { behaviourOptions } from "./options.ts";
import { randomSurvey } from "./simulation.fixture.ts";
import { type AnswerableQuestion, answerSurvey } from "./survey-answers.ts";

/** The two checks `POST /api/v1/surveys/{id}/responses` makes: the body schema, then `checkAnswers`. */
const validBody = compileBody<ResponseCreate>(ResponseCreate);
const SESSION = "11111111-1111-4111-8111-111111111111";

const surveys = (seed: number, n: number) => {
  const r = createRandom(seed);
  return Array.from({ length: n }, () => randomSurvey(r));
};

const valuesOf = (q: AnswerableQuestion, ids: readonly string[]) =>
  (q.answers ?? []).filter((o) => ids.includes(o.id)).map((o) => o.value);

describe("survey answers", () => {
  it("draws fixture surveys that obey the shape rules", () => {
    for (const questions of surveys(1, 300)) expect(checkSurveyShape(questions)).toEqual([]);
  });

  it.each([
    { skipOptionalShare: 0.3, attentionPassShare: 1 },
    { skipOptionalShare: 0, attentionPassShare: 0 },
    { skipOptionalShare: 1, attentionPassShare: 0.5 },
  ])("passes the API's validation for every survey when %o", (overrides) => {
    const options = behaviourOptions(overrides);
    const r = createRandom(2);
    for (const questions of surveys(3, 400)) {
      const { answers, durationMs } = answerSurvey(r, questions, options);
      const body = validBody({ session_id: SESSION, answers });
      expect(body.ok ? [] : body.problems).toEqual([]);
      const checked = checkAnswers(questions, answers);
      expect(checked.ok ? [] : checked.problems).toEqual([]);
      expect(durationMs).toBeGreaterThan(0);
    }
  });

  it("answers attention checks as expected when it passes them", () => {
    const r = createRandom(4);
    let checks = 0;
    for (const questions of surveys(5, 400)) {
      const { answers } = answerSurvey(r, questions, behaviourOptions({ attentionPassShare: 1 }));
      for (const q of questions) {
        const want = q.attention_answer;
        if (want === undefined || want === null) continue;
        const answer = answers.find((a) => a.questionId === q.id);
        expect(answer, `attention check ${q.id} is never skipped`).toBeDefined();
        const got = valuesOf(q, answer?.selections ?? []);
        if (typeof want === "number") {
          checks++;
          expect(got).toEqual([want]);
        } else {
          const matching = (q.answers ?? []).filter((o) => want.includes(o.value)).length;
          const max = q.maxSelect ? q.maxSelect : Number.POSITIVE_INFINITY;
          // A check no valid answer can meet (its values span more options than maxSelect) is skipped.
          if (matching < (q.minSelect ?? 0) || matching > max) continue;
          checks++;
          expect(got.every((v) => want.includes(v))).toBe(true);
          expect(got).toHaveLength(matching);
        }
      }
    }
    expect(checks).toBeGreaterThan(50);
  });

  it("fails a single-choice attention check when told to, where another option has another value", () => {
    const r = createRandom(6);
    let failed = 0;
    for (const questions of surveys(7, 300)) {
      const { answers } = answerSurvey(r, questions, behaviourOptions({ attentionPassShare: 0 }));
      for (const q of questions) {
        const want = q.attention_answer;
        if (typeof want !== "number" || (q.answers ?? []).every((o) => o.value === want)) continue;
        const answer = answers.find((a) => a.questionId === q.id);
        expect(valuesOf(q, answer?.selections ?? [])).not.toContain(want);
        failed++;
      }
    }
    expect(failed).toBeGreaterThan(20);
  });

  it("skips optional questions with the set share and answers every one with share 0", () => {
    const count = (skipOptionalShare: number) => {
      const r = createRandom(8);
      let optional = 0;
      let answered = 0;
      for (const questions of surveys(9, 400)) {
        const { answers } = answerSurvey(r, questions, behaviourOptions({ skipOptionalShare }));
        for (const q of questions) {
          if (q.required !== false || q.attention_answer !== undefined) continue;
          optional++;
          const a = answers.find((x) => x.questionId === q.id);
          const empty = a === undefined || (a.selections.length === 0 && !a.textInput);
          // A multi with minSelect 0 may be answered with no option: that reads as skipped too.
          if (!empty) answered++;
          else if (skipOptionalShare === 0) expect(q.type === "multi" && !q.minSelect).toBe(true);
        }
      }
      return { optional, answered };
    };
    const none = count(0);
    const some = count(0.3);
    const all = count(1);
    expect(none.optional).toBeGreaterThan(200);
    expect(all.answered).toBe(0);
    expect(Math.abs(1 - some.answered / some.optional / (none.answered / none.optional) - 0.3)).toBeLessThan(
      0.08,
    );
  });

  it("gives the same answers for the same seed", () => {
    const questions = surveys(10, 20).find((s) => s.length >= 5) ?? [];
    expect(questions.length).toBeGreaterThanOrEqual(5);
    const a = answerSurvey(createRandom(11), questions, behaviourOptions());
    const b = answerSurvey(createRandom(11), questions, behaviourOptions());
    expect(a).toEqual(b);
  });
});
