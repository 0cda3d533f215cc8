import { randomUUID } from "node:crypto";
import type { AdminSurvey, Experiment, Me, PendingSurvey, SurveyResponse } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey } from "../../../test/harness/surveys.ts";

const CONSENT = {
  en: "# Taking part\n\nYou may stop at any time.",
  de: "# Teilnahme\n\nSie können jederzeit aufhören.",
};
const QUESTIONS = [
  {
    id: "mood",
    text: { en: "How do you feel?", de: "Wie fühlen Sie sich?" },
    type: "single" as const,
    answers: [
      { id: "good", text: { en: "Good", de: "Gut" }, value: 1 },
      { id: "bad", text: { en: "Bad", de: "Schlecht" }, value: 0 },
    ],
  },
];

/** api.md "Participant languages": a researcher's texts in several languages, and who reads which. */
describe.each(BACKENDS)("researchers' texts in several languages (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const patch = (id: string, body: Record<string, unknown>) =>
    admin.patch<Experiment>(`/api/v1/admin/experiments/${id}`, body);

  async function join(experimentId: string, login: string, lang: string) {
    const client = new Client(app.url);
    const r = await client.post("/api/v1/participants/join", {
      experiment_id: experimentId,
      login_id: login,
      lang,
    });
    expect(r.status).toBe(200);
    return client;
  }

  it("gives each participant the consent text and the pending survey in their language, and keeps the texts they answered", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    expect((await patch(experiment.id, { languages: ["en", "de"], consent_text: CONSENT })).status).toBe(200);
    const survey = await createSurvey(admin, experiment.id, {
      kind: "pre",
      name: { en: "Mood", de: "Stimmung" },
      is_active: true,
      questions: QUESTIONS,
    });
    // The admin reads the texts as written, every language.
    const stored = (await admin.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`)).body;
    expect([stored.name, stored.questions[0]?.text]).toEqual([
      { en: "Mood", de: "Stimmung" },
      QUESTIONS[0]?.text,
    ]);
    expect((await patch(experiment.id, { status: "running" })).status).toBe(200);

    for (const [lang, consent, question, options] of [
      ["de", CONSENT.de, "Wie fühlen Sie sich?", ["Gut", "Schlecht"]],
      ["en", CONSENT.en, "How do you feel?", ["Good", "Bad"]],
    ] as const) {
      const client = await join(experiment.id, `reader-${lang}`, lang);
      const me = (await client.get<Me>("/api/v1/me")).body;
      expect(me.consent?.text).toBe(consent);
      expect(
        (await client.post("/api/v1/participants/consent", { version: me.consent?.version })).status,
      ).toBe(204);
      const sessionId = randomUUID();
      expect((await client.post("/sessions", { session_id: sessionId })).status).toBe(201);
      const pending = (await client.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${sessionId}`))
        .body;
      expect(pending?.survey.name).toBe(lang === "de" ? "Stimmung" : "Mood");
      expect(pending?.survey.questions.map((q) => [q.text, q.answers.map((o) => o.text)])).toEqual([
        [question, options],
      ]);
      const answered = await client.post<SurveyResponse>(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: sessionId,
        answers: [{ questionId: "mood", selections: ["good"] }],
      });
      expect(answered.status).toBe(201);
      expect(answered.body.answers[0]).toMatchObject({
        questionText: question,
        selections: [{ id: "good", text: options[0], value: 1 }],
      });
    }
    // The survey CSV keeps the values language-neutral, with the language beside them.
    const wide = await admin.get(`/api/v1/admin/surveys/${survey.id}/responses/wide.csv`);
    const [header = "", ...rows] = wide.text.trim().split("\r\n");
    const columns = header.split(",");
    const cells = rows.map((row) => row.split(","));
    expect(cells.map((c) => [c[columns.indexOf("language")], c[columns.indexOf("mood")]]).sort()).toEqual([
      ["de", "1"],
      ["en", "1"],
    ]);
  });

  it("refuses to start a study whose consent text or active survey lacks a language it lists, naming which, and starts once written", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    const english = QUESTIONS.map((q) => ({
      ...q,
      answers: q.answers.map((o, i) => (i === 1 ? { ...o, text: o.text.en } : o)),
    }));
    await patch(experiment.id, { languages: ["en", "de"], consent_text: CONSENT.en });
    const survey = await createSurvey(admin, experiment.id, {
      kind: "pre",
      is_active: true,
      questions: english,
    });
    const refused = await patch(experiment.id, { status: "running" });
    expect([refused.status, codeOf(refused)]).toEqual([422, "experiment_not_ready"]);
    const problems = detailsOf<{ problems: Record<string, unknown>[] }>(refused)?.problems ?? [];
    expect(problems.filter((p) => p.problem === "missing_translation")).toEqual([
      expect.objectContaining({ fields: ["consent_text"], languages: ["de"] }),
      expect.objectContaining({
        survey_id: survey.id,
        fields: ["questions[0].answers[1].text"],
        languages: ["de"],
        message: expect.stringMatching(/German \(de\).*question 1, option 2/),
      }),
    ]);
    expect((await admin.get<Experiment>(`/api/v1/admin/experiments/${experiment.id}`)).body.status).toBe(
      "draft",
    );

    expect((await patch(experiment.id, { consent_text: CONSENT })).status).toBe(200);
    const fixed = await admin.put(`/api/v1/admin/surveys/${survey.id}`, {
      name: "Mood",
      questions: QUESTIONS,
    });
    expect(fixed.status).toBe(200);
    expect((await patch(experiment.id, { status: "running" })).status).toBe(200);
  });

  it("refuses to start a study in one language whose consent text is written in another only", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    await patch(experiment.id, { languages: ["de"], consent_text: { en: CONSENT.en } });
    const refused = await patch(experiment.id, { status: "running" });
    expect([refused.status, codeOf(refused)]).toEqual([422, "experiment_not_ready"]);
    expect(detailsOf<{ problems: Record<string, unknown>[] }>(refused)?.problems).toEqual([
      expect.objectContaining({
        problem: "missing_translation",
        fields: ["consent_text"],
        languages: ["de"],
      }),
    ]);
    expect((await patch(experiment.id, { consent_text: CONSENT.de })).status).toBe(200);
    expect((await patch(experiment.id, { status: "running" })).status).toBe(200);
  });

  it("refuses a text keyed by something that is not a language tag, or by one language twice, and stores nothing", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    const twice = await patch(experiment.id, { consent_text: { en: "Agree?", EN: "Agree!" } });
    expect([twice.status, codeOf(twice)]).toEqual([422, "invalid_language"]);
    const notTag = await patch(experiment.id, { consent_text: { "english!": "Agree?" } });
    expect(notTag.status).toBe(422);
    const badQuestion = await admin.post(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "pre",
      name: "Mood",
      questions: [{ ...QUESTIONS[0], text: { en: "How?", "de-DE-x-y-zzzzzzzzz": "Wie?" } }],
    });
    expect(badQuestion.status).toBe(422);
    expect(
      (await admin.get<Experiment>(`/api/v1/admin/experiments/${experiment.id}`)).body.consent_text,
    ).toBeNull();
    expect(
      (await admin.get<AdminSurvey[]>(`/api/v1/admin/experiments/${experiment.id}/surveys`)).body,
    ).toEqual([]);
    // Tags are kept in canonical form, so they match the study's languages.
    const canonical = await patch(experiment.id, { consent_text: { EN: "Agree?", "zh-hans": "同意吗？" } });
    expect(canonical.body.consent_text).toEqual({ en: "Agree?", "zh-Hans": "同意吗？" });
  });
});
