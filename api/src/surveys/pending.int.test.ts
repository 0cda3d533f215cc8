import type { PendingSurvey } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey, joinParticipant, newSession, sampleAnswers } from "../../../test/harness/surveys.ts";

/** The spec's dispatcher for GET /api/v1/surveys/pending: four rules, first match wins. */
describe.each(BACKENDS)("pending survey dispatcher (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const pending = (c: Client, sessionId: string) =>
    c.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${sessionId}`);
  const answer = (c: Client, surveyId: string, sessionId: string, about?: string) =>
    c.post(`/api/v1/surveys/${surveyId}/responses`, {
      session_id: sessionId,
      ...(about ? { about_session_id: about } : {}),
      answers: sampleAnswers(),
    });

  async function running() {
    return (await createStudy(admin, { status: "running", videoCount: 1 })).experiment;
  }

  it("answers 200 with a JSON null when no survey is due", async () => {
    const experiment = await running();
    await createSurvey(admin, experiment.id, { kind: "pre" }); // a draft is never due
    const p = await joinParticipant(app, experiment.id, "nothing");
    const r = await pending(p.client, p.sessionId);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/application\/json/);
    expect(r.text).toBe("null");
  });

  it("rule 1: returns the active pre survey, forced, until the participant answers it", async () => {
    const experiment = await running();
    const pre = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const p = await joinParticipant(app, experiment.id, "pre");
    const r = await pending(p.client, p.sessionId);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      survey: {
        id: pre.id,
        experiment_id: experiment.id,
        kind: "pre",
        name: pre.name,
        is_active: true,
        questions: pre.questions,
        created_at: pre.created_at,
        updated_at: pre.updated_at,
      },
      forced: true,
      about_session_id: null,
    });
    // Submitting re-evaluates the dispatcher: nothing is due any more.
    expect((await answer(p.client, pre.id, p.sessionId)).status).toBe(201);
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
    // Every participant answers for themselves.
    const q = await joinParticipant(app, experiment.id, "pre-2");
    expect((await pending(q.client, q.sessionId)).body?.survey.id).toBe(pre.id);
  });

  it("rule 2: returns the post survey, not forced, only once the experiment is completed", async () => {
    const experiment = await running();
    const post = await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    const p = await joinParticipant(app, experiment.id, "post");
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "completed" });
    const due = (await pending(p.client, p.sessionId)).body;
    expect(due).toMatchObject({
      survey: { id: post.id, kind: "post" },
      forced: false,
      about_session_id: null,
    });
    expect((await answer(p.client, post.id, p.sessionId)).status).toBe(201);
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
  });

  it("rule 3: returns the inter_session survey about the most recent other session, until answered about it", async () => {
    const experiment = await running();
    const inter = await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    const p = await joinParticipant(app, experiment.id, "inter");
    // Given only the current session, nothing is due.
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
    // When a new session starts, the survey asks about the previous one.
    const second = await newSession(p.client);
    expect((await pending(p.client, second)).body).toMatchObject({
      survey: { id: inter.id, kind: "inter_session" },
      forced: false,
      about_session_id: p.sessionId,
    });
    expect((await answer(p.client, inter.id, second, p.sessionId)).status).toBe(201);
    expect((await pending(p.client, second)).body).toBeNull();
    // A third session asks about the second: the most recent session other than the current one.
    const third = await newSession(p.client);
    expect((await pending(p.client, third)).body?.about_session_id).toBe(second);
    // Seen from the second session, the most recent other session is the third.
    expect((await pending(p.client, second)).body?.about_session_id).toBe(third);
  });

  it("gives pre priority over post, and never follows the study-ending post survey with inter_session", async () => {
    const experiment = await running();
    const pre = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const post = await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    // A participant who joined while it ran, back after the study was completed (newcomers cannot join).
    const p = await joinParticipant(app, experiment.id, "order");
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "completed" });
    const current = await newSession(p.client);
    const due = async () => (await pending(p.client, current)).body;

    expect(await due()).toMatchObject({ survey: { id: pre.id }, forced: true });
    await answer(p.client, pre.id, current);
    expect(await due()).toMatchObject({ survey: { id: post.id }, forced: false });
    await answer(p.client, post.id, current);
    // The inter_session survey about the earlier session would be due in a running study; the study
    // has ended, so it is not.
    expect(await due()).toBeNull();
  });

  it("asks again when a new survey of an answered kind is activated", async () => {
    const experiment = await running();
    const first = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const p = await joinParticipant(app, experiment.id, "again");
    await answer(p.client, first.id, p.sessionId);
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
    await admin.post(`/api/v1/admin/surveys/${first.id}/deactivate`);
    const second = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    expect((await pending(p.client, p.sessionId)).body?.survey.id).toBe(second.id);
  });

  it("ignores surveys of other experiments", async () => {
    const experiment = await running();
    const elsewhere = await running();
    await createSurvey(admin, elsewhere.id, { kind: "pre", is_active: true });
    const p = await joinParticipant(app, experiment.id, "mine");
    expect((await pending(p.client, p.sessionId)).body).toBeNull();
  });

  it("answers 403 for another participant's session, 404 for an unknown one, 422 without session_id", async () => {
    const experiment = await running();
    const p = await joinParticipant(app, experiment.id, "a");
    const other = await joinParticipant(app, experiment.id, "b");
    expect((await pending(p.client, other.sessionId)).status).toBe(403);
    const unknown = await pending(p.client, "00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(codeOf(unknown)).toBe("not_found");
    expect((await p.client.get("/api/v1/surveys/pending")).status).toBe(422);
    expect((await app.client().get(`/api/v1/surveys/pending?session_id=${p.sessionId}`)).status).toBe(401);
  });
});
