import type { AdminSurvey, PendingSurvey, SurveyResponse } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSurvey,
  joinParticipant,
  sampleAnswers,
  sampleQuestions,
} from "../../../test/harness/surveys.ts";

/**
 * The survey side of api.md "Data quality and validity": a response's `duration_ms`, and questions
 * that carry `attention_answer` (checked on save, never served to participants).
 */
describe.each(BACKENDS)("survey validity instruments (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const details = (r: { body: unknown }) =>
    (r.body as { error: { details: Record<string, unknown> } }).error.details;

  /** sampleQuestions with "mood" an attention check expecting "Okay" (value 1), "topics" Food and Science. */
  const withChecks = () =>
    sampleQuestions().map((q) =>
      q.id === "mood"
        ? { ...q, attention_answer: 1 }
        : q.id === "topics"
          ? { ...q, attention_answer: [1, 3] }
          : q,
    );

  async function activeSurvey(questions: unknown = sampleQuestions()) {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true, questions });
    return { experiment, survey };
  }

  it("stores a response's duration_ms and answers it back", async () => {
    // Given an active survey and a participant,
    const { experiment, survey } = await activeSurvey();
    const p = await joinParticipant(app, experiment.id, "timed");
    // when the participant page sends how long the form was open,
    const r = await p.client.post<SurveyResponse>(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: p.sessionId,
      answers: sampleAnswers(),
      duration_ms: 12_345,
    });
    // then the response carries it and the row stores it.
    expect(r.status).toBe(201);
    expect(r.body.duration_ms).toBe(12_345);
    const row = await app.runtime.db("survey_responses").where({ id: r.body.id }).first("duration_ms");
    expect(row?.duration_ms).toBe(12_345);
  });

  it("stores duration_ms as null when the page does not send it", async () => {
    const { experiment, survey } = await activeSurvey();
    const p = await joinParticipant(app, experiment.id, "untimed");
    const r = await p.client.post<SurveyResponse>(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: p.sessionId,
      answers: sampleAnswers(),
    });
    expect(r.status).toBe(201);
    expect(r.body.duration_ms).toBeNull();
    const row = await app.runtime.db("survey_responses").where({ id: r.body.id }).first("duration_ms");
    expect(row?.duration_ms).toBeNull();
  });

  it.each([
    ["negative", -1],
    ["over a day", 86_400_001],
    ["fractional", 1.5],
  ])(
    "answers 422 validation_failed naming duration_ms when it is %s, and stores nothing",
    async (_, value) => {
      const { experiment, survey } = await activeSurvey();
      const p = await joinParticipant(app, experiment.id, `bad-duration-${String(value).replace(".", "-")}`);
      const r = await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
        duration_ms: value,
      });
      expect(r.status).toBe(422);
      expect(codeOf(r)).toBe("validation_failed");
      expect(String(details(r).field)).toContain("duration_ms");
      expect(
        await app.runtime.db("survey_responses").where({ survey_id: survey.id }).first("id"),
      ).toBeUndefined();
    },
  );

  it("accepts the bounds of duration_ms: 0 and a whole day", async () => {
    const { experiment, survey } = await activeSurvey();
    for (const [login, value] of [
      ["zero", 0],
      ["day", 86_400_000],
    ] as const) {
      const p = await joinParticipant(app, experiment.id, `bound-${login}`);
      const r = await p.client.post<SurveyResponse>(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
        duration_ms: value,
      });
      expect(r.status).toBe(201);
      expect(r.body.duration_ms).toBe(value);
    }
  });

  it("saves attention checks on single and multi questions and shows them to the admin", async () => {
    const { survey } = await activeSurvey(withChecks());
    const read = await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`);
    expect(read.status).toBe(200);
    const byId = new Map(read.body.questions.map((q) => [q.id, q]));
    expect(byId.get("mood")?.attention_answer).toBe(1);
    expect(byId.get("topics")?.attention_answer).toEqual([1, 3]);
    expect(byId.get("why")).not.toHaveProperty("attention_answer");
  });

  it("answers 422 invalid_survey naming the field when attention_answer names no option's value, on create and update", async () => {
    const { experiment } = await createStudy(admin);
    const questions = sampleQuestions().map((q) => (q.id === "mood" ? { ...q, attention_answer: 7 } : q));
    const created = await admin.post(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "pre",
      name: "Checks",
      questions,
    });
    expect(created.status).toBe(422);
    expect(codeOf(created)).toBe("invalid_survey");
    expect(details(created)).toMatchObject({
      field: "questions[0].attention_answer",
      question_id: "mood",
      rule: "attention_answer_not_option",
    });

    const survey = await createSurvey(admin, experiment.id, { kind: "post" });
    const multi = sampleQuestions().map((q) => (q.id === "topics" ? { ...q, attention_answer: [1, 4] } : q));
    const updated = await admin.put(`/api/v1/admin/surveys/${survey.id}`, { name: "x", questions: multi });
    expect(updated.status).toBe(422);
    expect(codeOf(updated)).toBe("invalid_survey");
    expect(details(updated)).toMatchObject({
      field: "questions[1].attention_answer",
      question_id: "topics",
      rule: "attention_answer_not_option",
    });
    // Nothing was saved.
    const read = await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`);
    expect(read.body.questions.some((q) => "attention_answer" in q)).toBe(false);
  });

  it("answers 422 invalid_survey when a text question carries attention_answer", async () => {
    const { experiment } = await createStudy(admin);
    const questions = sampleQuestions().map((q) => (q.id === "why" ? { ...q, attention_answer: 1 } : q));
    const r = await admin.post(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "pre",
      name: "Checks",
      questions,
    });
    expect(r.status).toBe(422);
    expect(details(r)).toMatchObject({
      field: "questions[2].attention_answer",
      rule: "attention_answer_on_text",
    });
  });

  it("never serves attention_answer to participants in the pending survey", async () => {
    // Given an active pre survey with two attention checks,
    const { experiment, survey } = await activeSurvey(withChecks());
    const p = await joinParticipant(app, experiment.id, "attentive");
    // when the participant page asks for the survey due,
    const r = await p.client.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${p.sessionId}`);
    // then it is served with its questions and options, and no expected answer anywhere in the body.
    expect(r.status).toBe(200);
    expect(r.body?.survey.id).toBe(survey.id);
    expect(r.body?.survey.questions.map((q) => q.id)).toEqual(["mood", "topics", "why"]);
    expect(JSON.stringify(r.body)).not.toContain("attention");
  });
});
