import type { SurveyResponse } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSurvey,
  joinParticipant,
  newSession,
  sampleAnswers,
  sampleQuestions,
} from "../../../test/harness/surveys.ts";

describe.each(BACKENDS)("survey responses (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const responsesOf = (surveyId: string) => `/api/v1/surveys/${surveyId}/responses`;
  const details = (r: { body: unknown }) =>
    (r.body as { error: { details: Record<string, unknown> } }).error.details;

  async function study(kind: "pre" | "post" | "inter_session" = "pre") {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, { kind, is_active: true });
    return { experiment, survey };
  }

  it("stores the answers as snapshots of question text and option id, text and value", async () => {
    // Given an active pre survey and a participant,
    const { experiment, survey } = await study();
    const p = await joinParticipant(app, experiment.id, "snap");
    // when the participant submits valid answers,
    const r = await p.client.post<SurveyResponse>(responsesOf(survey.id), {
      session_id: p.sessionId,
      answers: [
        { questionId: "why", selections: [], textInput: 'Line one,\n"two"' },
        { questionId: "topics", selections: ["science", "food"] },
        { questionId: "mood", selections: ["bad"], textInput: null },
      ],
    });
    // then the stored response holds the spec's Answer records, in question order, about no session.
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ survey_id: survey.id, user_id: p.user.user_id, about_session_id: null });
    expect(r.body.answers).toEqual([
      {
        questionId: "mood",
        questionText: "How do you feel right now?",
        selections: [{ id: "bad", text: "Bad", value: -1.5 }],
        textInput: null,
      },
      {
        questionId: "topics",
        questionText: "Which topics interest you?",
        selections: [
          { id: "food", text: "Food", value: 1 },
          { id: "science", text: "Science", value: 3 },
        ],
        textInput: null,
      },
      {
        questionId: "why",
        questionText: "Anything else, in your words?",
        selections: [],
        textInput: 'Line one,\n"two"',
      },
    ]);

    // When the survey is edited afterwards, the stored answers keep the old wording.
    const renamed = sampleQuestions().map((q) => ({ ...q, text: `${q.text} (v2)` }));
    expect(
      (await admin.put(`/api/v1/admin/surveys/${survey.id}`, { name: "v2", questions: renamed })).status,
    ).toBe(200);
    const stored = await app.runtime
      .db("survey_responses")
      .where({ id: r.body.id })
      .first<{ answers: unknown }>("answers");
    const answers = typeof stored?.answers === "string" ? JSON.parse(stored.answers) : stored?.answers;
    expect(answers).toEqual(r.body.answers);
  });

  it.each([
    [
      "an unknown question",
      [...sampleAnswers(), { questionId: "nope", selections: [] }],
      "unknown_question",
      "nope",
    ],
    [
      "an unknown option",
      [{ questionId: "mood", selections: ["great"] }, ...sampleAnswers().slice(1)],
      "unknown_option",
      "mood",
    ],
    [
      "two options on a single question",
      [{ questionId: "mood", selections: ["good", "ok"] }, ...sampleAnswers().slice(1)],
      "single_needs_one",
      "mood",
    ],
    [
      "no option on a single question",
      [{ questionId: "mood", selections: [] }, ...sampleAnswers().slice(1)],
      "single_needs_one",
      "mood",
    ],
    [
      "fewer options than minSelect",
      [sampleAnswers()[0], { questionId: "topics", selections: [] }, sampleAnswers()[2]],
      "too_few_selections",
      "topics",
    ],
    [
      "more options than maxSelect",
      [
        sampleAnswers()[0],
        { questionId: "topics", selections: ["food", "travel", "science"] },
        sampleAnswers()[2],
      ],
      "too_many_selections",
      "topics",
    ],
    [
      "selections on a text question",
      [...sampleAnswers().slice(0, 2), { questionId: "why", selections: ["food"], textInput: "x" }],
      "selections_on_text",
      "why",
    ],
    [
      "no text on a text question",
      [...sampleAnswers().slice(0, 2), { questionId: "why", selections: [], textInput: null }],
      "text_required",
      "why",
    ],
    ["a question left out", sampleAnswers().slice(0, 2), "missing_answer", "why"],
    ["a question answered twice", [...sampleAnswers(), sampleAnswers()[0]], "duplicate_answer", "mood"],
  ])(
    "answers 422 invalid_answers when the answers have %s, and stores nothing",
    async (_name, answers, rule, questionId) => {
      const { experiment, survey } = await study();
      const p = await joinParticipant(app, experiment.id, "rules");
      const r = await p.client.post(responsesOf(survey.id), { session_id: p.sessionId, answers });
      expect(r.status).toBe(422);
      expect(codeOf(r)).toBe("invalid_answers");
      expect(details(r)).toMatchObject({ rule, question_id: questionId });
      // Nothing was stored: a corrected submission goes through.
      const ok = await p.client.post(responsesOf(survey.id), {
        session_id: p.sessionId,
        answers: sampleAnswers(),
      });
      expect(ok.status).toBe(201);
    },
  );

  it("accepts any number of options on a multi question with maxSelect 0", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const questions = [{ ...sampleQuestions()[1], minSelect: 0, maxSelect: 0 }];
    const survey = await createSurvey(admin, experiment.id, { kind: "pre", questions, is_active: true });
    const a = await joinParticipant(app, experiment.id, "all");
    const none = await joinParticipant(app, experiment.id, "none");
    const all = ["food", "travel", "science"];
    expect(
      (
        await a.client.post(responsesOf(survey.id), {
          session_id: a.sessionId,
          answers: [{ questionId: "topics", selections: all }],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await none.client.post(responsesOf(survey.id), {
          session_id: none.sessionId,
          answers: [{ questionId: "topics", selections: [] }],
        })
      ).status,
    ).toBe(201);
  });

  it("answers 409 duplicate_response to a repeat submission, even with other answers", async () => {
    const { experiment, survey } = await study("post");
    const p = await joinParticipant(app, experiment.id, "twice");
    const first = await p.client.post(responsesOf(survey.id), {
      session_id: p.sessionId,
      answers: sampleAnswers(),
    });
    expect(first.status).toBe(201);
    const second = await p.client.post(responsesOf(survey.id), {
      session_id: await newSession(p.client),
      answers: sampleAnswers("Changed my mind"),
    });
    expect(second.status).toBe(409);
    expect(codeOf(second)).toBe("duplicate_response");
    // Another participant answers the same survey freely.
    const other = await joinParticipant(app, experiment.id, "other");
    expect(
      (
        await other.client.post(responsesOf(survey.id), {
          session_id: other.sessionId,
          answers: sampleAnswers(),
        })
      ).status,
    ).toBe(201);
  });

  it("gives one 201 and 49 409s to 50 simultaneous duplicate submissions, and stores one response", async () => {
    const { experiment, survey } = await study();
    const p = await joinParticipant(app, experiment.id, "burst");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        p.client.post(responsesOf(survey.id), {
          session_id: p.sessionId,
          answers: sampleAnswers(`try ${i}`),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && codeOf(r) === "duplicate_response")).toHaveLength(49);
    const rows = await app.runtime.db("survey_responses").where({ survey_id: survey.id });
    expect(rows).toHaveLength(1);
  });

  it("gives one 201 per about session to simultaneous inter_session duplicates", async () => {
    const { experiment, survey } = await study("inter_session");
    const p = await joinParticipant(app, experiment.id, "inter-burst");
    const current = await newSession(p.client);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        p.client.post(responsesOf(survey.id), {
          session_id: current,
          about_session_id: p.sessionId,
          answers: sampleAnswers(),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
  });

  it("stores an inter_session response about an own session, once per about session", async () => {
    const { experiment, survey } = await study("inter_session");
    const p = await joinParticipant(app, experiment.id, "inter");
    const second = await newSession(p.client);
    const third = await newSession(p.client);
    const about = (session: string, aboutId: string) =>
      p.client.post<SurveyResponse>(responsesOf(survey.id), {
        session_id: session,
        about_session_id: aboutId,
        answers: sampleAnswers(),
      });
    const r = await about(second, p.sessionId);
    expect(r.status).toBe(201);
    expect(r.body.about_session_id).toBe(p.sessionId);
    expect((await about(third, second)).status).toBe(201);
    const again = await about(third, p.sessionId);
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe("duplicate_response");
  });

  it("answers 422 invalid_answers when an inter_session response has no about session, or one that is not the participant's", async () => {
    const { experiment, survey } = await study("inter_session");
    const p = await joinParticipant(app, experiment.id, "about");
    const other = await joinParticipant(app, experiment.id, "about-other");
    for (const [aboutId, rule] of [
      [undefined, "about_session_required"],
      [null, "about_session_required"],
      [other.sessionId, "unknown_about_session"],
      ["00000000-0000-4000-8000-000000000000", "unknown_about_session"],
    ] as const) {
      const r = await p.client.post(responsesOf(survey.id), {
        session_id: p.sessionId,
        ...(aboutId === undefined ? {} : { about_session_id: aboutId }),
        answers: sampleAnswers(),
      });
      expect(r.status, String(aboutId)).toBe(422);
      expect(codeOf(r)).toBe("invalid_answers");
      expect(details(r)).toMatchObject({ field: "about_session_id", rule });
    }
  });

  it("stores about_session_id null for pre and post responses whatever is sent", async () => {
    const { experiment, survey } = await study("pre");
    const p = await joinParticipant(app, experiment.id, "pre-about");
    const r = await p.client.post<SurveyResponse>(responsesOf(survey.id), {
      session_id: p.sessionId,
      about_session_id: p.sessionId,
      answers: sampleAnswers(),
    });
    expect(r.status).toBe(201);
    expect(r.body.about_session_id).toBeNull();
  });

  it("answers 404 for a survey that is inactive, unknown or of another experiment", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const draft = await createSurvey(admin, experiment.id, { kind: "pre" });
    const elsewhere = await study();
    const p = await joinParticipant(app, experiment.id, "lost");
    for (const id of [draft.id, elsewhere.survey.id, "00000000-0000-4000-8000-000000000000"]) {
      const r = await p.client.post(responsesOf(id), { session_id: p.sessionId, answers: sampleAnswers() });
      expect(r.status, id).toBe(404);
      expect(codeOf(r)).toBe("not_found");
    }
  });

  it("answers 403 for another participant's session, 404 for an unknown one, 401 without joining", async () => {
    const { experiment, survey } = await study();
    const p = await joinParticipant(app, experiment.id, "me");
    const other = await joinParticipant(app, experiment.id, "you");
    const foreign = await p.client.post(responsesOf(survey.id), {
      session_id: other.sessionId,
      answers: sampleAnswers(),
    });
    expect(foreign.status).toBe(403);
    const unknown = await p.client.post(responsesOf(survey.id), {
      session_id: "00000000-0000-4000-8000-000000000000",
      answers: sampleAnswers(),
    });
    expect(unknown.status).toBe(404);
    expect(
      (await app.client().post(responsesOf(survey.id), { session_id: p.sessionId, answers: [] })).status,
    ).toBe(401);
    expect((await admin.post(responsesOf(survey.id), { session_id: p.sessionId, answers: [] })).status).toBe(
      403,
    );
  });

  it("answers 4xx, never 500, to malformed bodies", async () => {
    const { experiment, survey } = await study();
    const p = await joinParticipant(app, experiment.id, "fuzz");
    const bodies: unknown[] = [
      {},
      { session_id: p.sessionId },
      { session_id: p.sessionId, answers: "yes" },
      { session_id: p.sessionId, answers: [{ questionId: 1 }] },
      { session_id: p.sessionId, answers: [{ questionId: "why", textInput: "nul\u0000byte" }] },
      { session_id: p.sessionId, answers: [{ questionId: "why", textInput: "x".repeat(10_001) }] },
      { session_id: "nope", answers: [] },
      { session_id: p.sessionId, about_session_id: "nope", answers: [] },
      { session_id: p.sessionId, answers: sampleAnswers(), extra: true },
    ];
    for (const body of bodies) {
      const r = await p.client.post(responsesOf(survey.id), body);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(422);
    }
    const malformed = await p.client.request("POST", responsesOf(survey.id), { body: "{not json" });
    expect(malformed.status).toBe(400);
  });
});
