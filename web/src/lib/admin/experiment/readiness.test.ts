import { describe, expect, it } from "vitest";
import { assignmentWarnings, surveyWarnings } from "./readiness.ts";

const survey = (kind: "pre" | "inter_session" | "post", name: string, is_active = false) => ({
  kind,
  name,
  is_active,
});

describe("the checklist's warnings about inactive surveys", () => {
  it("warns about a kind whose only survey is inactive, naming it", () => {
    expect(surveyWarnings([survey("pre", "Background")])).toEqual([
      "The pre-study survey “Background” is inactive, so participants will not see it. Activate it under Surveys if they should.",
    ]);
  });

  it("counts and names every survey of a kind when none of them is active", () => {
    expect(surveyWarnings([survey("post", "Exit A"), survey("post", "Exit B")])).toEqual([
      "The 2 post-study surveys (“Exit A”, “Exit B”) are inactive, so participants will see none of them. Activate one under Surveys if they should.",
    ]);
  });

  it("says nothing of inactive drafts next to an active survey of the same kind, or of no surveys", () => {
    expect(surveyWarnings([survey("pre", "Draft"), survey("pre", "Live", true)])).toEqual([]);
    expect(surveyWarnings([])).toEqual([]);
  });

  it("leaves the post-study kind to the server's problem when the completion waits for a post survey", () => {
    expect(surveyWarnings([survey("post", "Exit")], [{ problem: "no_post_survey" }])).toEqual([]);
  });

  it("lists the kinds in the order participants meet them", () => {
    const warnings = surveyWarnings([survey("post", "Exit"), survey("pre", "Intro")]);
    expect(warnings.map((w) => w.split(" ")[1])).toEqual(["pre-study", "post-study"]);
  });
});

describe("the checklist's warnings about assignment", () => {
  it("asks for each minimisation covariate in the study links, and refuses a platform's id as one", () => {
    expect(assignmentWarnings({ method: "balanced" })).toEqual([]);
    const [age, pid] = assignmentWarnings({
      method: "minimisation",
      covariates: [
        { source: "recruiting", key: "age_band" },
        { source: "recruiting", key: "PROLIFIC_PID" },
      ],
    });
    expect(age).toContain("…&age_band=…");
    expect(pid).toContain("balances nothing");
  });
});
