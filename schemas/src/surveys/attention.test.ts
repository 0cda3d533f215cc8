import { describe, expect, it } from "vitest";
import {
  type AttentionQuestion,
  attentionResult,
  checkAttentionAnswers,
  checkSurveyQuestions,
  straightLined,
} from "./attention.ts";

const scale = (values: readonly number[]) => values.map((value) => ({ value }));
const LIKERT = scale([1, 2, 3, 4, 5]);

const single = (id: string, extra: Partial<AttentionQuestion> = {}): AttentionQuestion => ({
  id,
  type: "single",
  answers: LIKERT,
  ...extra,
});
const multi = (id: string, extra: Partial<AttentionQuestion> = {}): AttentionQuestion => ({
  id,
  type: "multi",
  minSelect: 1,
  maxSelect: 0,
  answers: scale([10, 20, 30, 40]),
  ...extra,
});
const answer = (questionId: string, ...values: number[]) => ({
  questionId,
  selections: values.map((value) => ({ value })),
});

describe("checkAttentionAnswers", () => {
  it("accepts a single check naming an option value and a multi check naming a list of them", () => {
    expect(
      checkAttentionAnswers([
        single("q1", { attention_answer: 4 }),
        multi("q2", { attention_answer: [10, 30] }),
        single("q3"),
        single("q4", { attention_answer: null }),
      ]),
    ).toEqual([]);
  });

  it.each([
    [
      "a single check naming no option's value",
      single("q", { attention_answer: 9 }),
      "attention_answer_not_option",
    ],
    [
      "a multi check naming one value no option has",
      multi("q", { attention_answer: [10, 99] }),
      "attention_answer_not_option",
    ],
    [
      "a text question marked as a check",
      { id: "q", type: "text", attention_answer: 1 } as const,
      "attention_answer_on_text",
    ],
    ["a single check given a list", single("q", { attention_answer: [4] }), "attention_answer_not_value"],
    ["a single check given an empty list", single("q", { attention_answer: [] }), "attention_answer_missing"],
    ["a multi check given one number", multi("q", { attention_answer: 10 }), "attention_answer_not_value"],
    ["a multi check given an empty list", multi("q", { attention_answer: [] }), "attention_answer_missing"],
    [
      "a multi check naming a value twice",
      multi("q", { attention_answer: [10, 10] }),
      "attention_answer_duplicate",
    ],
    [
      "a multi check with more values than maxSelect",
      multi("q", { maxSelect: 1, attention_answer: [10, 20] }),
      "attention_answer_unreachable",
    ],
    [
      "a multi check with fewer matching options than minSelect",
      multi("q", { minSelect: 2, attention_answer: [10] }),
      "attention_answer_unreachable",
    ],
  ])("refuses %s with rule %s at questions[i].attention_answer", (_name, question, rule) => {
    const [problem, ...rest] = checkAttentionAnswers([single("ok"), question as AttentionQuestion]);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      rule,
      field: "questions[1].attention_answer",
      question_index: 1,
      question_id: "q",
    });
  });
});

describe("checkSurveyQuestions", () => {
  it("reports shape problems first per question, attention problems of sound questions, in question order", () => {
    const option = (id: string, value: number) => ({ id, text: id, value });
    const problems = checkSurveyQuestions([
      { id: "a", text: "A", type: "single", answers: [option("x", 1)], attention_answer: 2 },
      { id: "b", text: "B", type: "single", answers: [], attention_answer: 2 },
      { id: "c", text: "C", type: "single", answers: [option("x", 1)], attention_answer: 1 },
    ]);
    expect(problems.map((p) => [p.question_index, p.rule])).toEqual([
      [0, "attention_answer_not_option"],
      [1, "options_required"],
    ]);
  });
});

describe("attentionResult", () => {
  it("is passed when a single check is answered with its expected value", () => {
    expect(attentionResult(single("q", { attention_answer: 4 }), answer("q", 4))).toBe("passed");
  });

  it("is failed when a single check is answered with another value", () => {
    expect(attentionResult(single("q", { attention_answer: 4 }), answer("q", 5))).toBe("failed");
  });

  it("is passed when a multi check is answered with exactly its values, in any order", () => {
    expect(attentionResult(multi("q", { attention_answer: [10, 30] }), answer("q", 30, 10))).toBe("passed");
  });

  it("is failed when a multi check misses an expected value or adds another", () => {
    const q = multi("q", { attention_answer: [10, 30] });
    expect(attentionResult(q, answer("q", 10))).toBe("failed");
    expect(attentionResult(q, answer("q", 10, 30, 40))).toBe("failed");
  });

  it("is null when the question is no attention check", () => {
    expect(attentionResult(single("q"), answer("q", 4))).toBeNull();
    expect(attentionResult(single("q", { attention_answer: null }), answer("q", 4))).toBeNull();
  });

  it("is null when the check was not answered", () => {
    const q = single("q", { attention_answer: 4 });
    expect(attentionResult(q, undefined)).toBeNull();
    expect(attentionResult(q, null)).toBeNull();
    expect(attentionResult(q, answer("q"))).toBeNull();
  });
});

describe("straightLined", () => {
  const five = ["q1", "q2", "q3", "q4", "q5"].map((id) => single(id));

  it("is true when 5 items of one scale are all answered with the same value", () => {
    expect(
      straightLined(
        five,
        five.map((q) => answer(q.id, 3)),
      ),
    ).toBe(true);
  });

  it("is false when one of the 5 items differs", () => {
    const answers = five.map((q, i) => answer(q.id, i === 4 ? 2 : 3));
    expect(straightLined(five, answers)).toBe(false);
  });

  it("is false with only 4 items of one scale, however alike", () => {
    const four = five.slice(0, 4);
    expect(
      straightLined(
        four,
        four.map((q) => answer(q.id, 3)),
      ),
    ).toBe(false);
  });

  it("leaves attention checks out: 4 items and a check answered alike are not 5 items", () => {
    const questions = [...five.slice(0, 4), single("check", { attention_answer: 3 })];
    expect(
      straightLined(
        questions,
        questions.map((q) => answer(q.id, 3)),
      ),
    ).toBe(false);
  });

  it("does not count items of another scale (different option values) towards the 5", () => {
    const questions = [...five.slice(0, 4), single("q5", { answers: scale([1, 2, 3, 4, 5, 6, 7]) })];
    expect(
      straightLined(
        questions,
        questions.map((q) => answer(q.id, 3)),
      ),
    ).toBe(false);
  });

  it("treats a reversed value list as another scale", () => {
    const questions = [...five.slice(0, 4), single("q5", { answers: scale([5, 4, 3, 2, 1]) })];
    expect(
      straightLined(
        questions,
        questions.map((q) => answer(q.id, 3)),
      ),
    ).toBe(false);
  });

  it("does not count multi or text questions as items", () => {
    const questions: AttentionQuestion[] = [
      ...five.slice(0, 4),
      { id: "m", type: "multi", minSelect: 1, maxSelect: 1, answers: LIKERT },
    ];
    expect(
      straightLined(
        questions,
        questions.map((q) => answer(q.id, 3)),
      ),
    ).toBe(false);
  });

  it("is true when any one of two scales with 5 items each is all alike", () => {
    const seven = ["s1", "s2", "s3", "s4", "s5"].map((id) =>
      single(id, { answers: scale([1, 2, 3, 4, 5, 6, 7]) }),
    );
    const answers = [...five.map((q, i) => answer(q.id, i + 1)), ...seven.map((q) => answer(q.id, 6))];
    expect(straightLined([...five, ...seven], answers)).toBe(true);
  });

  it("needs 5 answered items: an optional item left out does not count", () => {
    const six = [...five, single("q6")];
    const answers = six.slice(0, 4).map((q) => answer(q.id, 3));
    expect(straightLined(six, answers)).toBe(false);
    expect(straightLined(six, [...answers, answer("q6", 3)])).toBe(true);
  });
});
