import { describe, expect, it } from "vitest";
import type { Question } from "../../survey/types.ts";
import {
  type SurveyOfStudy,
  surveyCovariateChoices,
  surveyCovariateFault,
  surveyCovariateMessage,
} from "./survey-covariates.ts";

const question = (id: string, type: Question["type"], text: Question["text"], options: string[] = []) =>
  ({
    id,
    text,
    type,
    minSelect: null,
    maxSelect: null,
    answers: options.map((o, i) => ({ id: `${id}-${i}`, text: { en: o, de: `${o} (de)` }, value: i })),
    required: true,
  }) satisfies Question;

const survey = (over: Partial<SurveyOfStudy>): SurveyOfStudy => ({
  id: "s1",
  kind: "pre",
  name: "Background",
  is_active: true,
  questions: [],
  ...over,
});

const age = question("age", "single", { de: "Wie alt?", en: "How old are you?" }, ["18-24", "25-34"]);
const hobbies = question("hobbies", "multi", "Your hobbies?", ["Music"]);
const why = question("why", "text", "Why did you join?");
const background = survey({ questions: [age, hobbies, why] });

describe("the pre-survey questions minimisation can balance on", () => {
  it("offers the active pre survey's single-choice questions, in the default language, with their answers", () => {
    expect(surveyCovariateChoices([background], [], "en")).toEqual([
      { key: "age", label: "How old are you?", options: ["18-24", "25-34"], note: null },
    ]);
    expect(surveyCovariateChoices([background], [], "de")[0]?.label).toBe("Wie alt?");
  });

  it("offers nothing from an inactive pre survey or from a survey of another kind", () => {
    expect(surveyCovariateChoices([survey({ questions: [age], is_active: false })], [], "en")).toEqual([]);
    expect(surveyCovariateChoices([survey({ questions: [age], kind: "post" })], [], "en")).toEqual([]);
  });

  it("keeps a saved question the active pre survey no longer offers, marked, so that it can be unticked", () => {
    const choices = surveyCovariateChoices([background], ["age", "hobbies", "gone"], "en");
    expect(choices.map((c) => [c.key, c.label, c.note])).toEqual([
      ["age", "How old are you?", null],
      ["hobbies", "Your hobbies?", "not single-choice"],
      ["gone", "gone", "not in the active pre survey"],
    ]);
    expect(
      surveyCovariateChoices([survey({ is_active: false, questions: [age] })], ["age"], "en")[0],
    ).toMatchObject({ label: "How old are you?", note: "not in the active pre survey" });
  });

  it("shows saved questions by id, unmarked, while the surveys are not read yet", () => {
    expect(surveyCovariateChoices(null, ["age"], "en")).toEqual([
      { key: "age", label: "age", options: [], note: null },
    ]);
  });
});

describe("why a survey covariate cannot be balanced on", () => {
  it("finds nothing wrong with a single-choice question of the active pre survey", () => {
    expect(surveyCovariateFault([background], "age")).toBeNull();
  });

  it("says so, in the researcher's words, when no pre survey is active, it lacks the question, or asks it otherwise", () => {
    const none = surveyCovariateFault([survey({ is_active: false, questions: [age] })], "age");
    expect(none?.fault).toBe("no_active_pre_survey");
    expect(none && surveyCovariateMessage(none, "age", "en")).toContain(
      "“How old are you?”, but no pre-study survey is active",
    );
    const missing = surveyCovariateFault([background], "gone");
    expect(missing && surveyCovariateMessage(missing, "gone", "en")).toContain(
      "“gone”, which the active pre-study survey “Background” does not ask",
    );
    const multi = surveyCovariateFault([background], "hobbies");
    expect(multi && surveyCovariateMessage(multi, "hobbies", "en")).toContain("may tick several answers");
    const text = surveyCovariateFault([background], "why");
    expect(text && surveyCovariateMessage(text, "why", "en")).toContain("write their own answer");
  });
});
