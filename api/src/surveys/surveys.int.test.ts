import type { AdminSurvey } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSurvey,
  joinParticipant,
  sampleAnswers,
  sampleQuestions,
} from "../../../test/harness/surveys.ts";

describe.each(BACKENDS)("admin surveys (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const surveysOf = (experimentId: string) => `/api/v1/admin/experiments/${experimentId}/surveys`;

  it("creates a draft survey with every question field present and reads it back", async () => {
    const { experiment } = await createStudy(admin);
    const r = await admin.post<AdminSurvey>(surveysOf(experiment.id), {
      kind: "pre",
      name: "Baseline",
      questions: [
        { id: "t", text: "Tell us", type: "text" },
        { id: "s", text: "Pick one", type: "single", answers: [{ id: "a", text: "A", value: 0.5 }] },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      experiment_id: experiment.id,
      kind: "pre",
      name: "Baseline",
      is_active: false,
      question_count: 2,
      response_count: 0,
      questions: [
        { id: "t", text: "Tell us", type: "text", minSelect: null, maxSelect: null, answers: [] },
        {
          id: "s",
          text: "Pick one",
          type: "single",
          minSelect: null,
          maxSelect: null,
          answers: [{ id: "a", text: "A", value: 0.5 }],
        },
      ],
    });
    const read = await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${r.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(r.body);
  });

  it("lists an experiment's surveys with question and response counts", async () => {
    const { experiment } = await createStudy(admin, { status: "running" });
    const pre = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    await createSurvey(admin, experiment.id, { kind: "post", name: "Exit", questions: [] });
    for (const login of ["a", "b"]) {
      const p = await joinParticipant(app, experiment.id, login);
      const r = await p.client.post(`/api/v1/surveys/${pre.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
      });
      expect(r.status).toBe(201);
    }
    const list = await admin.get<AdminSurvey[]>(surveysOf(experiment.id));
    expect(list.status).toBe(200);
    expect(list.body.map((s) => [s.kind, s.name, s.question_count, s.response_count])).toEqual([
      ["pre", "pre survey", 3, 2],
      ["post", "Exit", 0, 0],
    ]);
    const other = await createStudy(admin);
    expect((await admin.get<AdminSurvey[]>(surveysOf(other.experiment.id))).body).toEqual([]);
  });

  it.each([
    [
      "a text question has answers",
      [{ id: "t", text: "Why?", type: "text", answers: [{ id: "a", text: "A", value: 1 }] }],
      "questions[0].answers",
      "t",
      "text_has_answers",
    ],
    [
      "a multi question has no minSelect and maxSelect",
      [
        { id: "ok", text: "Fine", type: "text" },
        { id: "m", text: "Pick", type: "multi", answers: [{ id: "a", text: "A", value: 1 }] },
      ],
      "questions[1].minSelect",
      "m",
      "select_bounds_required",
    ],
    [
      "a single question has no options",
      [{ id: "s", text: "Pick", type: "single", answers: [] }],
      "questions[0].answers",
      "s",
      "options_required",
    ],
    [
      "a multi question has no options",
      [{ id: "m", text: "Pick", type: "multi", minSelect: 0, maxSelect: 0 }],
      "questions[0].answers",
      "m",
      "options_required",
    ],
    [
      "two questions share an id",
      [
        { id: "x", text: "One", type: "text" },
        { id: "x", text: "Two", type: "text" },
      ],
      "questions[1].id",
      "x",
      "question_id_duplicate",
    ],
  ])("answers 422 invalid_survey naming the question when %s", async (_name, questions, field, id, rule) => {
    const { experiment } = await createStudy(admin);
    const created = await admin.post(surveysOf(experiment.id), { kind: "post", name: "Bad", questions });
    expect(created.status).toBe(422);
    expect(codeOf(created)).toBe("invalid_survey");
    expect((created.body as { error: { details: unknown } }).error.details).toMatchObject({
      field,
      question_id: id,
      rule,
    });
    // Nothing was stored.
    expect((await admin.get<AdminSurvey[]>(surveysOf(experiment.id))).body).toEqual([]);

    // The same rules run when a survey is edited.
    const good = await createSurvey(admin, experiment.id, { kind: "post" });
    const updated = await admin.put(`/api/v1/admin/surveys/${good.id}`, { name: "Bad", questions });
    expect(updated.status).toBe(422);
    expect(codeOf(updated)).toBe("invalid_survey");
    expect((await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${good.id}`)).body.questions).toEqual(
      good.questions,
    );
  });

  it("answers 422 validation_failed for a kind outside pre, post, inter_session or a name over 255 characters", async () => {
    const { experiment } = await createStudy(admin);
    for (const body of [
      { kind: "during", name: "x", questions: [] },
      { kind: "pre", name: "x".repeat(256), questions: [] },
      { kind: "pre", name: "", questions: [] },
      { kind: "pre", name: "nul\u0000", questions: [] },
      { kind: "pre", name: "x", questions: [{ id: "q", text: "t", type: "dropdown", answers: [] }] },
    ]) {
      const r = await admin.post(surveysOf(experiment.id), body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(codeOf(r)).toBe("validation_failed");
    }
    const longest = await admin.post<AdminSurvey>(surveysOf(experiment.id), {
      kind: "inter_session",
      name: "é".repeat(255),
      questions: [],
    });
    expect(longest.status).toBe(201);
  });

  it("updates name and questions, keeps kind, and answers 422 kind_immutable when kind differs", async () => {
    const { experiment } = await createStudy(admin);
    const survey = await createSurvey(admin, experiment.id, { kind: "pre" });
    const questions = [{ id: "n", text: "New question", type: "text" }];
    const same = await admin.put<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`, {
      kind: "pre",
      name: "Renamed",
      questions,
    });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ kind: "pre", name: "Renamed", question_count: 1 });
    expect(new Date(same.body.updated_at) >= new Date(survey.updated_at)).toBe(true);

    const changed = await admin.put(`/api/v1/admin/surveys/${survey.id}`, {
      kind: "post",
      name: "Renamed again",
      questions,
    });
    expect(changed.status).toBe(422);
    expect(codeOf(changed)).toBe("kind_immutable");
    expect((await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`)).body).toMatchObject({
      kind: "pre",
      name: "Renamed",
    });
  });

  it("answers 409 active_survey_exists when a second pre survey is activated, and allows it after deactivation", async () => {
    const { experiment } = await createStudy(admin);
    const first = await createSurvey(admin, experiment.id, { kind: "pre", name: "First" });
    const second = await createSurvey(admin, experiment.id, { kind: "pre", name: "Second" });
    const post = await createSurvey(admin, experiment.id, { kind: "post" });

    const on = await admin.post<AdminSurvey>(`/api/v1/admin/surveys/${first.id}/activate`);
    expect(on.status).toBe(200);
    expect(on.body.is_active).toBe(true);
    // Activating an active survey changes nothing.
    expect((await admin.post<AdminSurvey>(`/api/v1/admin/surveys/${first.id}/activate`)).status).toBe(200);

    const clash = await admin.post(`/api/v1/admin/surveys/${second.id}/activate`);
    expect(clash.status).toBe(409);
    expect(codeOf(clash)).toBe("active_survey_exists");
    expect((clash.body as { error: { details: unknown } }).error.details).toMatchObject({
      kind: "pre",
      active_survey_id: first.id,
    });
    expect((await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${second.id}`)).body.is_active).toBe(false);

    // Another kind is independent; so is another experiment.
    expect((await admin.post(`/api/v1/admin/surveys/${post.id}/activate`)).status).toBe(200);
    const other = await createStudy(admin);
    await createSurvey(admin, other.experiment.id, { kind: "pre", is_active: true });

    const off = await admin.post<AdminSurvey>(`/api/v1/admin/surveys/${first.id}/deactivate`);
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    expect((await admin.post(`/api/v1/admin/surveys/${second.id}/activate`)).status).toBe(200);
  });

  it("answers 409 active_survey_exists when a survey is created active while another of its kind is", async () => {
    const { experiment } = await createStudy(admin);
    await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    const r = await admin.post(surveysOf(experiment.id), {
      kind: "inter_session",
      name: "Second",
      questions: [],
      is_active: true,
    });
    expect(r.status).toBe(409);
    expect(codeOf(r)).toBe("active_survey_exists");
    expect((await admin.get<AdminSurvey[]>(surveysOf(experiment.id))).body).toHaveLength(1);
  });

  it("leaves exactly one active survey when ten drafts of one kind are activated at once", async () => {
    const { experiment } = await createStudy(admin);
    const drafts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createSurvey(admin, experiment.id, { kind: "post", name: `Draft ${i}` }),
      ),
    );
    const results = await Promise.all(
      drafts.map((d) => admin.post(`/api/v1/admin/surveys/${d.id}/activate`)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && codeOf(r) === "active_survey_exists")).toHaveLength(9);
    const list = (await admin.get<AdminSurvey[]>(surveysOf(experiment.id))).body;
    expect(list.filter((s) => s.is_active)).toHaveLength(1);
  });

  it("deletes a survey with its responses, and the experiment's deletion takes its surveys along", async () => {
    const { experiment } = await createStudy(admin, { status: "running" });
    const survey = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const p = await joinParticipant(app, experiment.id, "deleter");
    await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: p.sessionId,
      answers: sampleAnswers(),
    });
    const count = async () =>
      Number(
        (await app.runtime.db("survey_responses").where({ survey_id: survey.id }).count({ n: "*" }))[0]?.n,
      );
    expect(await count()).toBe(1);
    expect((await admin.del(`/api/v1/admin/surveys/${survey.id}`)).status).toBe(204);
    expect(await count()).toBe(0);
    expect((await admin.get(`/api/v1/admin/surveys/${survey.id}`)).status).toBe(404);
    expect((await admin.del(`/api/v1/admin/surveys/${survey.id}`)).status).toBe(404);

    const kept = await createSurvey(admin, experiment.id, { kind: "post" });
    expect((await admin.del(`/api/v1/admin/experiments/${experiment.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/admin/surveys/${kept.id}`)).status).toBe(404);
  });

  it("answers 404 for unknown experiments and surveys, 401 without a cookie, 403 with a participant's", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await admin.get(surveysOf(unknown))).status).toBe(404);
    expect(
      (await admin.post(surveysOf(unknown), { kind: "pre", name: "x", questions: sampleQuestions() })).status,
    ).toBe(404);
    for (const path of [
      `/api/v1/admin/surveys/${unknown}`,
      "/api/v1/admin/surveys/not-a-uuid",
      `/api/v1/admin/surveys/${unknown}/responses/csv`,
    ]) {
      const r = await admin.get(path);
      expect(r.status, path).toBe(404);
      expect(codeOf(r)).toBe("not_found");
    }
    expect((await admin.put(`/api/v1/admin/surveys/${unknown}`, { name: "x", questions: [] })).status).toBe(
      404,
    );
    expect((await admin.post(`/api/v1/admin/surveys/${unknown}/activate`)).status).toBe(404);
    expect((await admin.post(`/api/v1/admin/surveys/${unknown}/deactivate`)).status).toBe(404);

    const { experiment } = await createStudy(admin, { status: "running" });
    expect((await app.client().get(surveysOf(experiment.id))).status).toBe(401);
    const p = await joinParticipant(app, experiment.id, "nosy");
    const r = await p.client.get(surveysOf(experiment.id));
    expect(r.status).toBe(403);
  });

  it("documents every survey path in the OpenAPI document", async () => {
    const doc = (
      await app.client().get<{ paths: Record<string, Record<string, unknown>> }>("/api/v1/openapi.json")
    ).body;
    expect(Object.keys(doc.paths["/api/v1/admin/experiments/{id}/surveys"] ?? {}).sort()).toEqual([
      "get",
      "post",
    ]);
    expect(Object.keys(doc.paths["/api/v1/admin/surveys/{id}"] ?? {}).sort()).toEqual([
      "delete",
      "get",
      "put",
    ]);
    for (const p of [
      "/api/v1/admin/surveys/{id}/activate",
      "/api/v1/admin/surveys/{id}/deactivate",
      "/api/v1/surveys/{id}/responses",
    ]) {
      expect(doc.paths[p], p).toHaveProperty("post");
    }
    expect(doc.paths["/api/v1/admin/surveys/{id}/responses/csv"]).toHaveProperty("get");
    expect(doc.paths["/api/v1/surveys/pending"]).toHaveProperty("get");
  });
});
