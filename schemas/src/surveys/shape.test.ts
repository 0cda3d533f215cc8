import { describe, expect, it } from "vitest";
import { BAD_SHAPES, GOOD_SHAPES } from "./shape.cases.ts";
import { checkSurveyShape, describeShapeProblem } from "./shape.ts";

describe("checkSurveyShape", () => {
  it.each(BAD_SHAPES)(
    "refuses $name with rule $rule at $field",
    ({ questions, rule, field, question_id }) => {
      // Given a question list that breaks one rule, when it is checked, then the first problem names it.
      const [first] = checkSurveyShape(questions);
      expect(first).toMatchObject({ rule, field, question_id });
    },
  );

  it.each(GOOD_SHAPES)("accepts $name", ({ questions }) => {
    expect(checkSurveyShape(questions)).toEqual([]);
  });

  it("reports one problem per broken question, in question order, with the question index", () => {
    const problems = checkSurveyShape([
      { id: "a", text: "A", type: "text", answers: [{ id: "x", text: "X", value: 1 }] },
      { id: "b", text: "B", type: "single", answers: [] },
      { id: "c", text: "C", type: "single", answers: [{ id: "x", text: "X", value: 1 }] },
      { id: "d", text: "D", type: "multi", answers: [{ id: "x", text: "X", value: 1 }] },
    ]);
    expect(problems.map((p) => [p.question_index, p.question_id, p.rule])).toEqual([
      [0, "a", "text_has_answers"],
      [1, "b", "options_required"],
      [3, "d", "select_bounds_required"],
    ]);
    expect(problems[0] && describeShapeProblem(problems[0])).toBe(
      "questions[0].answers: a text question must have no answer options",
    );
  });
});
