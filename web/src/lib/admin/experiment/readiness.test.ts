import { describe, expect, it } from "vitest";
import { assignmentWarnings, problemMessage, surveyWarnings } from "./readiness.ts";

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

  const pre = (questionType: "single" | "multi", is_active = true) => ({
    id: "s1",
    kind: "pre" as const,
    name: "Background",
    is_active,
    questions: [
      {
        id: "age",
        text: "How old are you?",
        type: questionType,
        minSelect: null,
        maxSelect: null,
        answers: [{ id: "a1", text: "18-24", value: 1 }],
        required: true,
      },
    ],
  });
  const onAge = { method: "minimisation" as const, covariates: [{ source: "survey" as const, key: "age" }] };

  it("says nothing of a single-choice question of the active pre survey", () => {
    expect(assignmentWarnings(onAge, [pre("single")])).toEqual([]);
  });

  it("warns, by the question's text, when no pre survey is active or the question is not single-choice", () => {
    expect(assignmentWarnings(onAge, [pre("single", false)])).toEqual([
      "Assignment balances on the pre-survey question “How old are you?”, but no pre-study survey is active, so participants could never be given an arm. Activate the pre-study survey that asks it, or stop balancing on it under Assignment.",
    ]);
    expect(assignmentWarnings(onAge, [pre("multi")])[0]).toContain("only a single-choice question");
    expect(assignmentWarnings(onAge, [])[0]).toContain("“age”, but no pre-study survey is active");
  });

  it("leaves a question the server refuses to its problem, and words that problem the same way", () => {
    const refused = {
      problem: "invalid_assignment",
      key: "age",
      message: "Assignment: covariate age is not ...",
    };
    expect(assignmentWarnings(onAge, [pre("multi")], [refused])).toEqual([]);
    expect(problemMessage(refused, onAge, [pre("multi")])).toContain(
      "“How old are you?” of the pre-study survey, but participants may tick several answers there",
    );
  });

  it("keeps the server's message for other problems, and for a question it refuses that looks fine here", () => {
    const other = { problem: "empty_pool", message: "The video pool is empty." };
    expect(problemMessage(other, onAge, [])).toBe("The video pool is empty.");
    const refused = { problem: "invalid_assignment", key: "age", message: "Assignment: not ready." };
    expect(problemMessage(refused, onAge, [pre("single")])).toBe("Assignment: not ready.");
  });
});
