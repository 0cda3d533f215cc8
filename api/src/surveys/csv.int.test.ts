import { randomUUID } from "node:crypto";
import type { SurveyResponse } from "@feedlab/schemas";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSurvey,
  joinParticipant,
  newSession,
  sampleAnswers,
  sampleQuestions,
} from "../../../test/harness/surveys.ts";
import { exportResponsesCsv, RESPONSE_CSV_COLUMNS } from "./responses.csv.ts";

describe.each(BACKENDS)("survey responses CSV (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const csvOf = (surveyId: string) => admin.get<string>(`/api/v1/admin/surveys/${surveyId}/responses/csv`);
  const records = (text: string): string[][] => parse(text);

  it("streams the spec's columns, one row per response and question, from the responses' snapshots", async () => {
    // Given a pre survey answered by two participants, then renamed,
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const stored: SurveyResponse[] = [];
    for (const login of ["P,1", 'P "2"']) {
      const p = await joinParticipant(app, experiment.id, login);
      const r = await p.client.post<SurveyResponse>(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(`He said "no",\nthen ${login}`),
      });
      stored.push(r.body);
    }
    const renamed = sampleQuestions().map((q) => ({ ...q, text: "Renamed" }));
    await admin.put(`/api/v1/admin/surveys/${survey.id}`, { name: "Renamed", questions: renamed });

    // when the admin downloads the CSV,
    const r = await csvOf(survey.id);

    // then it is RFC 4180 text with a header and 3 rows per response, in submission order.
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe(
      `attachment; filename="survey-${survey.id}-responses.csv"`,
    );
    expect(r.text.startsWith(`${RESPONSE_CSV_COLUMNS.join(",")}\r\n`)).toBe(true);
    expect(r.text.endsWith("\r\n")).toBe(true);
    const [header, ...rows] = records(r.text);
    expect(header).toEqual([...RESPONSE_CSV_COLUMNS]);
    expect(rows).toHaveLength(6);
    const [first, second] = stored;
    expect(rows.map((row) => [row[0], row[1], row[4]])).toEqual([
      [first?.id, "P,1", "mood"],
      [first?.id, "P,1", "topics"],
      [first?.id, "P,1", "why"],
      [second?.id, 'P "2"', "mood"],
      [second?.id, 'P "2"', "topics"],
      [second?.id, 'P "2"', "why"],
    ]);
    const [mood, topics, why] = rows;
    // about_session_id is empty for pre; created_at is the ISO timestamp of the response.
    expect(mood?.[2]).toBe("");
    expect(mood?.[3]).toBe(first?.created_at);
    // question_text is the snapshot, not the renamed survey.
    expect(mood?.[5]).toBe("How do you feel right now?");
    // selections: JSON list of {id, text, value}, values preserved; text_input empty for choices.
    expect(JSON.parse(mood?.[6] ?? "")).toEqual([{ id: "ok", text: "Okay", value: 1 }]);
    expect(mood?.[7]).toBe("");
    expect(JSON.parse(topics?.[6] ?? "")).toEqual([
      { id: "food", text: "Food", value: 1 },
      { id: "science", text: "Science", value: 3 },
    ]);
    expect(topics?.[7]).toBe("");
    // A text question: no selections, the written answer with its comma, quotes and line break.
    expect(why?.[6]).toBe("[]");
    expect(why?.[7]).toBe('He said "no",\nthen P,1');
  });

  it("fills about_session_id for inter_session responses", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    const p = await joinParticipant(app, experiment.id, "inter");
    const current = await newSession(p.client);
    await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: current,
      about_session_id: p.sessionId,
      answers: sampleAnswers(),
    });
    const rows = records((await csvOf(survey.id)).text).slice(1);
    expect(rows.map((row) => row[2])).toEqual([p.sessionId, p.sessionId, p.sessionId]);
  });

  it("answers just the header for a survey without responses", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, { kind: "post" });
    const r = await csvOf(survey.id);
    expect(r.status).toBe(200);
    expect(r.text).toBe(`${RESPONSE_CSV_COLUMNS.join(",")}\r\n`);
  });

  it("pages through responses in (created_at, id) order without losing or repeating one, microseconds included", async () => {
    // Given 23 responses inserted directly, several sharing a created_at to the microsecond,
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, {
      kind: "pre",
      questions: [{ id: "t", text: "T", type: "text" }],
    });
    const db = app.runtime.db;
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const p = await joinParticipant(app, experiment.id, `bulk-${i}`);
      const id = randomUUID();
      ids.push(id);
      await db.raw(
        `insert into survey_responses (id, survey_id, user_id, answers, created_at)
         values (?, ?, ?, ?::jsonb, timestamptz '2026-01-01 00:00:00.000001+00' + (? * interval '1 microsecond'))`,
        [
          id,
          survey.id,
          p.user.user_id,
          JSON.stringify([{ questionId: "t", questionText: "T", selections: [], textInput: `#${i}` }]),
          Math.floor(i / 4),
        ],
      );
    }
    // when the export reads them 5 at a time,
    let text = "";
    for await (const chunk of exportResponsesCsv(db, survey.id, { pageSize: 5 })) text += String(chunk);
    // then every response appears once, ordered by created_at and then id.
    const got = records(text)
      .slice(1)
      .map((row) => row[0]);
    const expected = ids
      .map((id, i) => ({ id, at: Math.floor(i / 4) }))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      .map((x) => x.id);
    expect(got).toEqual(expected);
  });
});
