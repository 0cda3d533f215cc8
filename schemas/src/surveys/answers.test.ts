import { describe, expect, it } from "vitest";
import { type AnswerSubmission, checkAnswers, type SurveyQuestion, selectionBounds } from "./answers.ts";

const QUESTIONS: SurveyQuestion[] = [
  {
    id: "mood",
    text: "How do you feel?",
    type: "single",
    minSelect: null,
    maxSelect: null,
    answers: [
      { id: "good", text: "Good", value: 2 },
      { id: "bad", text: "Bad", value: -1.5 },
    ],
  },
  {
    id: "topics",
    text: "Which topics?",
    type: "multi",
    minSelect: 1,
    maxSelect: 2,
    answers: [
      { id: "food", text: "Food", value: 1 },
      { id: "travel", text: "Travel", value: 2 },
      { id: "science", text: "Science", value: 3 },
    ],
  },
  { id: "why", text: "Why?", type: "text", minSelect: null, maxSelect: null, answers: [] },
];

const valid: AnswerSubmission[] = [
  { questionId: "mood", selections: ["bad"], textInput: null },
  { questionId: "topics", selections: ["science", "food"] },
  { questionId: "why", selections: [], textInput: 'Because, "quotes"\nand lines' },
];

const replace = (index: number, answer: AnswerSubmission) => valid.map((a, i) => (i === index ? answer : a));

describe("checkAnswers", () => {
  it("expands valid answers into Answer snapshots in question order, values kept as numbers", () => {
    const result = checkAnswers(QUESTIONS, [...valid].reverse());
    expect(result).toEqual({
      ok: true,
      answers: [
        {
          questionId: "mood",
          questionText: "How do you feel?",
          selections: [{ id: "bad", text: "Bad", value: -1.5 }],
          textInput: null,
        },
        {
          questionId: "topics",
          questionText: "Which topics?",
          selections: [
            { id: "food", text: "Food", value: 1 },
            { id: "science", text: "Science", value: 3 },
          ],
          textInput: null,
        },
        {
          questionId: "why",
          questionText: "Why?",
          selections: [],
          textInput: 'Because, "quotes"\nand lines',
        },
      ],
    });
  });

  it("ignores a textInput sent with a single or multi question and stores null", () => {
    const result = checkAnswers(
      QUESTIONS,
      replace(0, { questionId: "mood", selections: ["good"], textInput: "extra" }),
    );
    expect(result.ok && result.answers[0]?.textInput).toBeNull();
  });

  it.each([
    [
      "an unknown question",
      [...valid, { questionId: "nope", selections: [] }],
      "unknown_question",
      "answers[3].questionId",
    ],
    [
      "a question answered twice",
      [...valid, valid[0] as AnswerSubmission],
      "duplicate_answer",
      "answers[3].questionId",
    ],
    ["a question left out", valid.slice(0, 2), "missing_answer", "answers"],
    [
      "an unknown option",
      replace(0, { questionId: "mood", selections: ["meh"] }),
      "unknown_option",
      "answers[0].selections[0]",
    ],
    [
      "no option on single",
      replace(0, { questionId: "mood", selections: [] }),
      "single_needs_one",
      "answers[0].selections",
    ],
    [
      "two options on single",
      replace(0, { questionId: "mood", selections: ["good", "bad"] }),
      "single_needs_one",
      "answers[0].selections",
    ],
    [
      "fewer than minSelect on multi",
      replace(1, { questionId: "topics", selections: [] }),
      "too_few_selections",
      "answers[1].selections",
    ],
    [
      "more than maxSelect on multi",
      replace(1, { questionId: "topics", selections: ["food", "travel", "science"] }),
      "too_many_selections",
      "answers[1].selections",
    ],
    [
      "an option twice on multi",
      replace(1, { questionId: "topics", selections: ["food", "food"] }),
      "duplicate_selection",
      "answers[1].selections[1]",
    ],
    [
      "selections on text",
      replace(2, { questionId: "why", selections: ["food"], textInput: "x" }),
      "selections_on_text",
      "answers[2].selections",
    ],
    [
      "no textInput on text",
      replace(2, { questionId: "why", selections: [], textInput: null }),
      "text_required",
      "answers[2].textInput",
    ],
    [
      "a blank textInput on text",
      replace(2, { questionId: "why", textInput: "  \n" }),
      "text_required",
      "answers[2].textInput",
    ],
  ] as const)("refuses %s with rule %s", (_name, answers, rule, field) => {
    const result = checkAnswers(QUESTIONS, answers);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems[0]).toMatchObject({ rule, field });
  });

  it("treats maxSelect 0 as no upper bound", () => {
    const unbounded = QUESTIONS.map((q) => (q.id === "topics" ? { ...q, minSelect: 0, maxSelect: 0 } : q));
    const all = replace(1, { questionId: "topics", selections: ["food", "travel", "science"] });
    const none = replace(1, { questionId: "topics", selections: [] });
    expect(checkAnswers(unbounded, all).ok).toBe(true);
    expect(checkAnswers(unbounded, none).ok).toBe(true);
  });
});

describe("selectionBounds", () => {
  it("says the bounds in words", () => {
    expect(selectionBounds(1, 3)).toBe("between 1 and 3");
    expect(selectionBounds(2, 2)).toBe("exactly 2");
    expect(selectionBounds(0, 2)).toBe("at most 2");
    expect(selectionBounds(2, 0)).toBe("at least 2");
  });
});
