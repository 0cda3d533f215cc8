import { randomUUID } from "node:crypto";
import { BAD_SHAPES, GOOD_SHAPES } from "@feedlab/schemas/surveys/shape.cases.ts";
import { rowsOf } from "@feedlab/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { joinParticipant, newSession, sampleQuestions } from "../../../test/harness/surveys.ts";

/** Storage enforces the survey rules itself (migration 020), for rows written with plain SQL. */
describe.each(BACKENDS)("survey storage rules (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const sql = (text: string, bindings: unknown[] = []) => app.runtime.db.raw(text, bindings as never[]);

  async function insertSurvey(
    experimentId: string,
    questions: unknown,
    extra: { kind?: string; name?: string; active?: boolean } = {},
  ) {
    const id = randomUUID();
    await sql(
      "insert into surveys (id, experiment_id, kind, name, is_active, questions) values (?, ?, ?, to_jsonb(?::text), ?, ?::jsonb)",
      [
        id,
        experimentId,
        extra.kind ?? "pre",
        extra.name ?? "Raw",
        extra.active ?? false,
        JSON.stringify(questions),
      ],
    );
    return id;
  }

  /** The error a statement fails with, or null. */
  async function failure(run: () => Promise<unknown>) {
    try {
      await run();
      return null;
    } catch (err) {
      return err as { code?: string; constraint?: string; detail?: string; message: string };
    }
  }

  it.each(BAD_SHAPES)(
    "refuses a survey inserted with plain SQL when $name ($rule)",
    async ({ questions, rule, field, question_id }) => {
      // Given an experiment; when a survey breaking one shape rule is inserted straight into storage,
      const { experiment } = await createStudy(admin, { videoCount: 1 });
      const err = await failure(() => insertSurvey(experiment.id, questions));
      // then the database refuses it, naming the same rule and field as the API's check.
      expect(err?.code).toBe("23514");
      expect(err?.constraint).toBe("surveys_question_shape");
      expect(JSON.parse(err?.detail ?? "{}")).toMatchObject({ rule, field, question_id });
      const count = rowsOf<{ n: number | string }>(
        await sql("select count(*) as n from surveys where experiment_id = ?", [experiment.id]),
      );
      expect(Number(count[0]?.n)).toBe(0);
    },
  );

  it.each(GOOD_SHAPES)(
    "accepts a survey inserted with plain SQL when it has $name",
    async ({ questions }) => {
      const { experiment } = await createStudy(admin, { videoCount: 1 });
      expect(await failure(() => insertSurvey(experiment.id, questions))).toBeNull();
    },
  );

  it("refuses an update that breaks the shape rules or changes the kind", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1 });
    const id = await insertSurvey(experiment.id, sampleQuestions());
    const shape = await failure(() =>
      sql("update surveys set questions = ?::jsonb where id = ?", [
        JSON.stringify([{ id: "t", text: "T", type: "text", answers: [{ id: "a", text: "A", value: 1 }] }]),
        id,
      ]),
    );
    expect(shape?.constraint).toBe("surveys_question_shape");
    const kind = await failure(() => sql("update surveys set kind = 'post' where id = ?", [id]));
    expect(kind?.constraint).toBe("surveys_kind_immutable");
  });

  it("refuses a kind outside pre, post, inter_session, a kind over 20 characters, and a name over 255", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1 });
    expect((await failure(() => insertSurvey(experiment.id, [], { kind: "during" })))?.code).toBe("23514");
    expect((await failure(() => insertSurvey(experiment.id, [], { kind: "x".repeat(21) })))?.code).toBe(
      "22001",
    );
    // The name is a text in one language or several (jsonb since migration 035): 255 characters each.
    expect(
      (await failure(() => insertSurvey(experiment.id, [], { name: "n".repeat(256) })))?.constraint,
    ).toBe("surveys_name_length");
    expect(await failure(() => insertSurvey(experiment.id, [], { name: "n".repeat(255) }))).toBeNull();
  });

  it("refuses a second active survey of one kind in an experiment, even inserted directly", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1 });
    await insertSurvey(experiment.id, [], { kind: "post", active: true });
    const err = await failure(() => insertSurvey(experiment.id, [], { kind: "post", active: true }));
    expect(err?.code).toBe("23505");
    expect(err?.constraint).toBe("surveys_one_active_per_kind");
    // Drafts and other kinds are free.
    expect(await failure(() => insertSurvey(experiment.id, [], { kind: "post" }))).toBeNull();
    expect(await failure(() => insertSurvey(experiment.id, [], { kind: "pre", active: true }))).toBeNull();
  });

  describe("responses", () => {
    const insertResponse = (surveyId: string, userId: string, about: string | null = null) =>
      sql(
        "insert into survey_responses (id, survey_id, user_id, about_session_id, answers) values (?, ?, ?, ?, '[]'::jsonb)",
        [randomUUID(), surveyId, userId, about],
      );

    async function setting() {
      const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
      const pre = await insertSurvey(experiment.id, [], { kind: "pre" });
      const inter = await insertSurvey(experiment.id, [], { kind: "inter_session" });
      const p = await joinParticipant(app, experiment.id, `raw-${randomUUID()}`);
      return { experiment, pre, inter, p, userId: p.user.user_id };
    }

    it("refuses a second response without about session for the same survey and user", async () => {
      const { pre, userId } = await setting();
      expect(await failure(() => insertResponse(pre, userId))).toBeNull();
      const err = await failure(() => insertResponse(pre, userId));
      expect(err?.code).toBe("23505");
      expect(err?.constraint).toBe("survey_responses_once");
    });

    it("refuses a second response about the same session, and accepts one about another session", async () => {
      const { inter, p, userId } = await setting();
      const second = await newSession(p.client);
      expect(await failure(() => insertResponse(inter, userId, p.sessionId))).toBeNull();
      const err = await failure(() => insertResponse(inter, userId, p.sessionId));
      expect(err?.code).toBe("23505");
      expect(err?.constraint).toBe("survey_responses_once_per_session");
      expect(await failure(() => insertResponse(inter, userId, second))).toBeNull();
    });

    it("refuses an about session on pre, none on inter_session, another participant's session, or another experiment's user", async () => {
      const { experiment, pre, inter, p, userId } = await setting();
      expect((await failure(() => insertResponse(pre, userId, p.sessionId)))?.constraint).toBe(
        "survey_responses_about_session",
      );
      expect((await failure(() => insertResponse(inter, userId)))?.constraint).toBe(
        "survey_responses_about_session",
      );
      const other = await joinParticipant(app, experiment.id, `other-${randomUUID()}`);
      expect((await failure(() => insertResponse(inter, userId, other.sessionId)))?.constraint).toBe(
        "survey_responses_about_session",
      );
      const elsewhere = await createStudy(admin, { status: "running", videoCount: 1 });
      const stranger = await joinParticipant(app, elsewhere.experiment.id, "stranger");
      expect((await failure(() => insertResponse(pre, stranger.user.user_id)))?.constraint).toBe(
        "survey_responses_experiment",
      );
    });

    it("refuses any edit of a submitted response", async () => {
      const { pre, userId } = await setting();
      await insertResponse(pre, userId);
      const err = await failure(() =>
        sql(`update survey_responses set answers = '[{"questionId":"x"}]'::jsonb where survey_id = ?`, [pre]),
      );
      expect(err?.constraint).toBe("survey_responses_immutable");
      expect(
        (
          await failure(() =>
            sql("update survey_responses set created_at = now() - interval '1 day' where survey_id = ?", [
              pre,
            ]),
          )
        )?.constraint,
      ).toBe("survey_responses_immutable");
    });

    it("keeps each response's chosen values and texts beside its answers, even inserted directly, and after an attempted edit", async () => {
      const { pre, userId } = await setting();
      const answers = [
        { questionId: "single", selections: [{ id: "o2", text: "Two", value: 2 }], textInput: null },
        { questionId: "multi", selections: [{ value: -1 }, { value: 0.5 }], textInput: null },
        { questionId: "text", selections: [], textInput: 'He said "hi",\nthen left' },
        { questionId: "skipped", selections: [], textInput: null },
      ];
      await sql("insert into survey_responses (id, survey_id, user_id, answers) values (?, ?, ?, ?::jsonb)", [
        randomUUID(),
        pre,
        userId,
        JSON.stringify(answers),
      ]);
      const cells = async () =>
        rowsOf<{ answer_values: string; answer_texts: string | null }>(
          await sql("select answer_values, answer_texts from survey_responses where survey_id = ?", [pre]),
        ).map((r) => ({ values: JSON.parse(r.answer_values), texts: JSON.parse(r.answer_texts ?? "null") }));
      const made = { values: { single: [2], multi: [-1, 0.5] }, texts: { text: 'He said "hi",\nthen left' } };
      expect(await cells()).toEqual([made]);
      // The update goes through; the trigger makes the cells again from the answers.
      expect(
        await failure(() =>
          sql("update survey_responses set answer_values = '{}' where survey_id = ?", [pre]),
        ),
      ).toBeNull();
      expect(await cells()).toEqual([made]);
    });

    it("sets about_session_id to null when its session is deleted and keeps the responses", async () => {
      const { inter, p, userId } = await setting();
      const second = await newSession(p.client);
      await insertResponse(inter, userId, p.sessionId);
      await insertResponse(inter, userId, second);
      // Both sessions go: two responses with a null about_session_id must not collide.
      await sql("delete from sessions where user_id = ?", [userId]);
      const rows = rowsOf<{ about_session_id: string | null }>(
        await sql("select about_session_id from survey_responses where survey_id = ?", [inter]),
      );
      expect(rows).toEqual([{ about_session_id: null }, { about_session_id: null }]);
    });

    it("removes a participant's responses with the participant, and a survey's with the survey", async () => {
      const { pre, inter, p, userId } = await setting();
      await insertResponse(pre, userId);
      await insertResponse(inter, userId, p.sessionId);
      await sql("delete from surveys where id = ?", [inter]);
      const left = async () =>
        Number(
          rowsOf<{ n: string }>(
            await sql("select count(*) as n from survey_responses where user_id = ?", [userId]),
          )[0]?.n,
        );
      expect(await left()).toBe(1);
      await sql("delete from auth_sessions where user_id = ?", [userId]);
      await sql("delete from users where id = ?", [userId]);
      expect(await left()).toBe(0);
    });
  });
});
