import { describe, expect, it } from "vitest";
import type { SurveyOfStudy } from "../experiment/survey-covariates.ts";
import { covariateLabels } from "./balance-labels.ts";

const pre: SurveyOfStudy = {
  id: "s1",
  kind: "pre",
  name: "Background",
  is_active: true,
  questions: [
    {
      id: "age",
      text: { en: "How old are you?", de: "Wie alt sind Sie?" },
      type: "single",
      minSelect: null,
      maxSelect: null,
      answers: [
        { id: "young", text: { en: "18-24", de: "18-24 Jahre" }, value: 1 },
        { id: "older", text: "25 or more", value: 2 },
      ],
      required: false,
    },
  ],
};

describe("the balance card's names of a covariate", () => {
  it("names a survey covariate by its question and its levels by their answers, in the default language", () => {
    const labels = covariateLabels({ source: "survey", key: "age" }, [pre], "de");
    expect([labels.title, labels.what]).toEqual(["Wie alt sind Sie?", "pre-survey question"]);
    expect(["young", "2", "(none)", "other"].map(labels.level)).toEqual([
      "18-24 Jahre",
      "25 or more",
      "no answer",
      "other",
    ]);
  });

  it("falls back to the question id and the raw levels without the surveys", () => {
    const labels = covariateLabels({ source: "survey", key: "age" }, undefined, "en");
    expect([labels.title, labels.level("young")]).toEqual(["age", "young"]);
  });

  it("shows a link parameter as it is", () => {
    const labels = covariateLabels({ source: "recruiting", key: "age" }, [pre], "en");
    expect([labels.title, labels.what, labels.level("(none)")]).toEqual(["age", "link parameter", "(none)"]);
  });
});
