import type { SurveyProblem } from "@feedlab/schemas/surveys/attention.ts";
import { describe, expect, it } from "vitest";
import { questionFields } from "./question-fields.ts";

const problem = (field: string): SurveyProblem => ({
  field,
  question_index: 2,
  question_id: "q3",
  rule: "option_value_not_number",
  message: "An option value must be a number.",
});

describe("questionFields", () => {
  it("marks only the field a problem names, and names its message after its hint", () => {
    const f = questionFields(2, problem("questions[2].answers[1].value"));
    expect(f.optionInvalid(1, "value")).toBe("true");
    expect(f.optionInvalid(1, "text")).toBeUndefined();
    expect(f.optionInvalid(0, "value")).toBeUndefined();
    expect(f.optionDescribedBy(1, "value")).toBe("question-2-option-1-error");
    expect(f.errorAt("option-1")).toBeTypeOf("string");
    expect(f.errorAt("text")).toBeUndefined();
    expect(f.describedBy("id", "question-2-id-hint")).toBe("question-2-id-hint");
  });

  it("puts a problem with the question's id under that field", () => {
    const f = questionFields(0, { ...problem("questions[0].id"), rule: "question_id_required" });
    expect(f.invalid("id")).toBe("true");
    expect(f.describedBy("id", "question-0-id-hint")).toBe("question-0-id-hint question-0-id-error");
  });

  it("marks nothing for a question without a problem", () => {
    const f = questionFields(1, undefined);
    expect(f.invalid("question")).toBeUndefined();
    expect(f.describedBy("question")).toBeUndefined();
  });
});
