import { checkSurveyQuestions } from "@feedlab/schemas/surveys/attention.ts";
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
  previewQuestions,
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
    first.text = { en: "Pick" };
    second.text = { en: "Why?" };
    const option = first.answers[0];
    if (option) option.text = { en: "Yes" };
    expect(checkSurveyShape(fromDraft([first, second], "en"))).toEqual([]);
  });

  it("sends options for single and multi only and bounds for multi only, keeping hidden options in the draft", () => {
    const q = { ...newQuestion([]), text: { en: "Pick" }, answers: [newOption([], 3)] };
    const asText = withType(q, "text");
    expect(fromDraft([asText], "en")[0]).toMatchObject({
      type: "text",
      answers: [],
      minSelect: null,
      maxSelect: null,
    });
    expect(asText.answers).toHaveLength(1);
    const asMulti = withType(asText, "multi");
    expect(fromDraft([asMulti], "en")[0]).toMatchObject({ type: "multi", minSelect: 1, maxSelect: 0 });
  });

  it("leaves an empty value as null, so the shape check names it as the server would", () => {
    const q = { ...newQuestion([]), text: { en: "Pick" } };
    q.answers = [{ key: 99, id: "a1", text: { en: "A" }, value: null }];
    expect(checkSurveyShape(fromDraft([q], "en"))[0]).toMatchObject({
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
    expect(fromDraft(toDraft(stored, "en"), "en")).toEqual(stored.questions);
    expect(move(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b", "c"], 2, 1)).toEqual(["a", "b", "c"]);
  });
});

describe("survey drafts in several languages", () => {
  const stored = {
    questions: [
      {
        id: "q",
        text: { en: "Pick", de: "Wählen Sie" },
        type: "single" as const,
        minSelect: null,
        maxSelect: null,
        answers: [{ id: "a", text: { en: "Yes", de: "Ja" }, value: 1 }],
        required: true,
      },
    ],
  };

  it("round-trips texts written per language and sends a text the default language alone has as a string", () => {
    expect(fromDraft(toDraft(stored, "en"), "en")).toEqual(stored.questions);
    const [q] = toDraft(stored, "en");
    if (!q) throw new Error("no question");
    const englishOnly = { ...q, text: { en: "Pick", de: "" } };
    expect(fromDraft([englishOnly], "en")[0]?.text).toBe("Pick");
  });

  it("previews each text in the chosen language, else the default's, as participants receive it", () => {
    const [de] = previewQuestions(stored.questions, "de", "en");
    expect(de).toMatchObject({ text: "Wählen Sie", answers: [{ text: "Ja" }] });
    const [fr] = previewQuestions(stored.questions, "fr", "en");
    expect(fr).toMatchObject({ text: "Pick", answers: [{ text: "Yes" }] });
  });
});

describe("the editor's own words and templates", () => {
  it("names problems by the editor's labels, not the API's fields", () => {
    const multi = newQuestion([], "multi");
    const problems = checkSurveyShape(
      fromDraft(
        [
          {
            ...multi,
            text: { en: "Q" },
            minSelect: 3,
            maxSelect: 0,
            answers: multi.answers.map((o) => ({ ...o, text: { en: "A" } })),
          },
        ],
        "en",
      ),
    );
    expect(problems.map(editorMessage)).toEqual([
      "Minimum selections cannot be more than the number of options.",
    ]);
    const [empty] = checkSurveyShape(fromDraft([{ ...newQuestion([]), text: { en: "Q" } }], "en"));
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
    const q = likertQuestion([], 7, "en");
    expect(q.type).toBe("single");
    expect(q.answers.map((o) => [o.text.en, o.value])).toEqual(LIKERT_LABELS[7].map((t, i) => [t, i + 1]));
    expect(q.required).toBe(true);
  });
});

describe("attention checks in the editor", () => {
  const scale = () => likertQuestion([], 5, "en");

  it("round-trips stored single and multi checks", () => {
    const stored = {
      questions: [
        { ...fromDraft([{ ...scale(), text: { en: "Choose Agree" } }], "en")[0], attention_answer: 4 },
        {
          id: "m",
          text: "Tick A and C",
          type: "multi" as const,
          minSelect: 1,
          maxSelect: 0,
          answers: ["A", "B", "C"].map((t, i) => ({ id: t, text: t, value: i })),
          required: true,
          attention_answer: [0, 2],
        },
      ],
    };
    expect(fromDraft(toDraft(stored as never, "en"), "en")).toEqual(stored.questions);
  });

  it("sends the value of the option marked, following an edit of that option's value", () => {
    const q = { ...scale(), text: { en: "Choose Agree" } };
    const agree = q.answers[3];
    q.attention = agree ? [agree.key] : [];
    expect(fromDraft([q], "en")[0]?.attention_answer).toBe(4);
    const recoded = { ...q, answers: q.answers.map((o) => (o === agree ? { ...o, value: 40 } : o)) };
    expect(fromDraft([recoded], "en")[0]?.attention_answer).toBe(40);
  });

  it("asks for the expected answer when a question is marked as a check with none chosen", () => {
    const q = { ...scale(), text: { en: "Choose Agree" }, attention: [] };
    const [problem] = checkSurveyQuestions(fromDraft([q], "en"));
    expect(problem).toMatchObject({
      rule: "attention_answer_missing",
      field: "questions[0].attention_answer",
    });
    expect(problem && editorMessage(problem)).toBe(
      "Choose the answer an attentive participant gives, or untick Attention check.",
    );
    expect(problemPlace({ field: "questions[0].attention_answer" })).toEqual({ field: "attention_answer" });
  });

  it("sends no check for a question that is none or became free text, and keeps one answer when it becomes single", () => {
    expect(fromDraft([scale()], "en")[0]).not.toHaveProperty("attention_answer");
    const multi = withType({ ...scale(), text: { en: "Q" } }, "multi");
    multi.attention = multi.answers.slice(0, 2).map((o) => o.key);
    expect(fromDraft([multi], "en")[0]?.attention_answer).toEqual([1, 2]);
    expect(fromDraft([withType(multi, "text")], "en")[0]).not.toHaveProperty("attention_answer");
    expect(fromDraft([withType(multi, "single")], "en")[0]?.attention_answer).toBe(1);
  });
});
