import { checkSurveyShape } from "@feedlab/schemas/surveys/shape.ts";
import { describe, expect, it } from "vitest";
import {
  editorMessage,
  fromDraft,
  LIKERT_LABELS,
  likertQuestion,
  move,
  newOption,
  newQuestion,
  problemPlace,
  toDraft,
  withType,
} from "./survey-draft.ts";

describe("survey drafts", () => {
  it("starts a question with a fresh id and one option, and a survey drafted that way obeys the shape rules once filled in", () => {
    const first = newQuestion([]);
    const second = newQuestion([first], "text");
    expect([first.id, second.id]).toEqual(["q1", "q2"]);
    expect(first.answers.map((o) => [o.id, o.value])).toEqual([["a1", 1]]);
    expect(second.answers).toEqual([]);
    first.text = "Pick";
    second.text = "Why?";
    const option = first.answers[0];
    if (option) option.text = "Yes";
    expect(checkSurveyShape(fromDraft([first, second]))).toEqual([]);
  });

  it("sends options for single and multi only and bounds for multi only, keeping hidden options in the draft", () => {
    const q = { ...newQuestion([]), text: "Pick", answers: [newOption([], 3)] };
    const asText = withType(q, "text");
    expect(fromDraft([asText])[0]).toMatchObject({
      type: "text",
      answers: [],
      minSelect: null,
      maxSelect: null,
    });
    expect(asText.answers).toHaveLength(1);
    const asMulti = withType(asText, "multi");
    expect(fromDraft([asMulti])[0]).toMatchObject({ type: "multi", minSelect: 1, maxSelect: 0 });
  });

  it("leaves an empty value as null, so the shape check names it as the server would", () => {
    const q = { ...newQuestion([]), text: "Pick" };
    q.answers = [{ key: 99, id: "a1", text: "A", value: null }];
    expect(checkSurveyShape(fromDraft([q]))[0]).toMatchObject({
      rule: "option_value_not_number",
      field: "questions[0].answers[0].value",
    });
  });

  it("round-trips a stored survey and moves questions", () => {
    const stored = {
      questions: [
        {
          id: "x",
          text: "X",
          type: "text" as const,
          minSelect: null,
          maxSelect: null,
          answers: [],
          required: false,
        },
        {
          id: "y",
          text: "Y",
          type: "single" as const,
          minSelect: null,
          maxSelect: null,
          answers: [{ id: "o", text: "O", value: 0.5 }],
          required: true,
        },
      ],
    };
    expect(fromDraft(toDraft(stored))).toEqual(stored.questions);
    expect(move(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b", "c"], 2, 1)).toEqual(["a", "b", "c"]);
  });
});

describe("the editor's own words and templates", () => {
  it("names problems by the editor's labels, not the API's fields", () => {
    const multi = newQuestion([], "multi");
    const problems = checkSurveyShape(
      fromDraft([
        {
          ...multi,
          text: "Q",
          minSelect: 3,
          maxSelect: 0,
          answers: multi.answers.map((o) => ({ ...o, text: "A" })),
        },
      ]),
    );
    expect(problems.map(editorMessage)).toEqual([
      "Minimum selections cannot be more than the number of options.",
    ]);
    const [empty] = checkSurveyShape(fromDraft([{ ...newQuestion([]), text: "Q" }]));
    expect(empty && editorMessage(empty)).toBe("Write the text of option 1.");
  });

  it("places each problem under the field it names, an option's id under that option's text", () => {
    const at = (field: string) => problemPlace({ field });
    expect(at("questions[0].text")).toEqual({ field: "text" });
    expect(at("questions[3].id")).toEqual({ field: "id" });
    expect(at("questions[1].minSelect")).toEqual({ field: "minSelect" });
    expect(at("questions[1].maxSelect")).toEqual({ field: "maxSelect" });
    expect(at("questions[2].answers")).toEqual({ field: "answers" });
    expect(at("questions[2].answers[4].value")).toEqual({ field: "option", option: 4, part: "value" });
    expect(at("questions[2].answers[1].text")).toEqual({ field: "option", option: 1, part: "text" });
    expect(at("questions[2].answers[1].id")).toEqual({ field: "option", option: 1, part: "text" });
    expect(at("questions[2].answers[0]")).toEqual({ field: "option", option: 0, part: "text" });
    // Nothing to point at: the question's card.
    expect(at("questions[5]")).toEqual({ field: "question" });
    expect(at("questions")).toEqual({ field: "question" });
  });

  it("makes a 7-point agreement scale coded 1 to 7", () => {
    const q = likertQuestion([], 7);
    expect(q.type).toBe("single");
    expect(q.answers.map((o) => [o.text, o.value])).toEqual(LIKERT_LABELS[7].map((t, i) => [t, i + 1]));
    expect(q.required).toBe(true);
  });
});
