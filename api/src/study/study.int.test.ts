import type { Me, PendingSurvey } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSurvey,
  joinParticipant,
  newSession,
  sampleAnswers,
  visit,
} from "../../../test/harness/surveys.ts";
import { PARTICIPANT_COOKIE } from "../auth/cookies.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";

/** api.md, Study flow: consent, completion, the study states and the survey order around them. */
describe.each(BACKENDS)("study flow (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const me = async (c: Client) => (await c.get<Me>("/api/v1/me")).body;
  const meIn = async (c: Client, sessionId: string) =>
    (await c.get<Me>(`/api/v1/me?session_id=${sessionId}`)).body;
  const pending = async (c: Client, sessionId: string) =>
    (await c.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${sessionId}`)).body;
  const answer = (c: Client, surveyId: string, sessionId: string, about?: string) =>
    c.post(`/api/v1/surveys/${surveyId}/responses`, {
      session_id: sessionId,
      ...(about ? { about_session_id: about } : {}),
      answers: sampleAnswers(),
    });
  const patch = (id: string, body: unknown) => admin.patch(`/api/v1/admin/experiments/${id}`, body);

  it("answers 403 consent_required on feed, watch and surveys until the participant agrees", async () => {
    const { experiment, videos } = await createStudy(admin, { status: "running", videoCount: 2 });
    expect(
      (await patch(experiment.id, { consent_text: "# Consent\n\nYou may stop at any time." })).status,
    ).toBe(200);
    const p = await joinParticipant(app, experiment.id, "consenting");
    const before = await me(p.client);
    expect(before.consent).toMatchObject({
      text: "# Consent\n\nYou may stop at any time.",
      consented_at: null,
    });
    const video = videos[0]?.id;
    for (const path of [
      `/feed?session_id=${p.sessionId}`,
      `/api/v1/videos/${video}`,
      `/feed/${video}/related?session_id=${p.sessionId}`,
      `/api/v1/surveys/pending?session_id=${p.sessionId}`,
    ]) {
      const r = await p.client.get(path);
      expect([path, r.status, codeOf(r)]).toEqual([path, 403, "consent_required"]);
    }
    // A version other than the text's: the text changed while it was read.
    const stale = await p.client.post("/api/v1/participants/consent", { version: "0000000000000000" });
    expect([stale.status, codeOf(stale)]).toEqual([409, "consent_changed"]);
    const agreed = await p.client.post("/api/v1/participants/consent", { version: before.consent?.version });
    expect(agreed.status).toBe(204);
    expect((await p.client.get(`/feed?session_id=${p.sessionId}`)).status).toBe(200);
    const after = await me(p.client);
    expect(after.consent?.consented_at).toEqual(expect.any(String));
    expect(after.consent?.version).toBe(before.consent?.version);
  });

  it("records a refusal and keeps the pages closed to a participant who declined", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    await patch(experiment.id, { consent_text: "Do you agree?" });
    const p = await joinParticipant(app, experiment.id, "declining");
    expect((await p.client.post("/api/v1/participants/consent", { agree: false })).status).toBe(204);
    expect((await me(p.client)).consent).toMatchObject({
      consented_at: null,
      declined_at: expect.any(String),
    });
    expect(codeOf(await p.client.get(`/feed?session_id=${p.sessionId}`))).toBe("consent_required");
  });

  it("finishes a participant after two sessions and the post survey, with the redirect filled in", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 2 });
    const post = await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    const completion = {
      after_sessions: 2,
      after_post_survey: true,
      code: "C0DE-42",
      redirect_url:
        "https://app.prolific.com/submissions/complete?cc={code}&pid={PROLIFIC_PID}&who={login_id}",
    };
    expect((await patch(experiment.id, { completion })).body).toMatchObject({ completion });
    const client = app.client();
    await client.post("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "prolific 1",
      recruiting: { PROLIFIC_PID: "5f&a", STUDY_ID: "s1" },
    });
    // A session registered without an event does not count; its first event makes it count.
    const first = await newSession(client);
    // The page's visit is the one this session makes: it counts once an event of it arrives.
    expect(await meIn(client, first)).toMatchObject({ progress: { sessions: 0, visit: 1 } });
    await visit(app, client, first);
    // The pages show the study's name and how far the participant has come toward the rule.
    expect(await meIn(client, first)).toMatchObject({
      status: "active",
      completion: null,
      experiment_name: experiment.name,
      progress: { sessions: 1, visit: 1, sessions_needed: 2, feed_minutes_needed: null },
    });
    expect(await pending(client, first)).toBeNull();

    // The second session reaches the sessions condition: the post survey is due, not the
    // inter_session survey about the first session.
    // The rule waits for the post survey's answer: it is served forced and cannot be dismissed.
    const second = await visit(app, client);
    expect(await pending(client, second)).toMatchObject({ survey: { id: post.id }, forced: true });
    const closed = await client.post(`/api/v1/surveys/${post.id}/dismissals`, { session_id: second });
    expect([closed.status, codeOf(closed)]).toEqual([409, "survey_forced"]);
    expect((await me(client)).status).toBe("active");
    expect((await answer(client, post.id, second)).status).toBe(201);

    expect(await me(client)).toMatchObject({
      status: "finished",
      completion: {
        code: "C0DE-42",
        redirect_url: "https://app.prolific.com/submissions/complete?cc=C0DE-42&pid=5f%26a&who=prolific%201",
      },
    });
    // Nothing follows the study-ending post survey.
    expect(await pending(client, second)).toBeNull();
    const csv = await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`);
    expect(csv.text).toMatch(/finished_at/);
    const row = csv.text.split("\n").find((line) => line.includes("prolific 1")) ?? "";
    expect(row).toMatch(/\d{4}-\d\d-\d\dT/); // finished_at is filled
  });

  it("keeps a Prolific link's recruiting parameters when a pre-registered participant first arrives by it", async () => {
    const { experiment, groups } = await createStudy(admin, {
      status: "running",
      videoCount: 2,
      weights: [1, 1],
    });
    const completion = {
      after_sessions: 1,
      code: "PRE-REG",
      redirect_url: "https://app.prolific.com/submissions/complete?cc={code}&pid={PROLIFIC_PID}",
    };
    expect((await patch(experiment.id, { completion })).status).toBe(200);
    const arm = groups[1]?.id;
    for (const login_id of ["pre 1", "pre 2"])
      expect(
        (
          await admin.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
            login_id,
            group_id: arm,
          })
        ).status,
      ).toBe(201);
    const arrive = async (login_id: string, PROLIFIC_PID: string) => {
      const client = app.client();
      const joined = await client.post<{ group_id: string }>("/api/v1/participants/join", {
        experiment_id: experiment.id,
        login_id,
        recruiting: { PROLIFIC_PID, STUDY_ID: "study-9" },
      });
      expect([joined.status, joined.body.group_id]).toEqual([200, arm]);
      return client;
    };
    const first = await arrive("pre 1", "pid-shared");
    await visit(app, first);
    expect((await me(first)).completion?.redirect_url).toBe(
      "https://app.prolific.com/submissions/complete?cc=PRE-REG&pid=pid-shared",
    );
    // A later link does not rewrite what the first arrival recorded.
    await visit(app, await arrive("pre 1", "pid-other"));
    expect((await me(first)).completion?.redirect_url).toContain("pid=pid-shared");

    // The duplicate-id flag sees the parameters too: a second pre-registered login with the same PID.
    await arrive("pre 2", "pid-shared");
    const quality = await admin.get<{
      participants: { login_id: string; duplicate_recruiting_id: boolean }[];
    }>(`/api/v1/admin/experiments/${experiment.id}/quality`);
    expect(quality.body.participants.map((p) => [p.login_id, p.duplicate_recruiting_id]).sort()).toEqual([
      ["pre 1", true],
      ["pre 2", true],
    ]);
    const csv = await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`);
    expect(csv.text.split("\n")[0]).toContain("PROLIFIC_PID");
    expect(csv.text.split("\n").filter((line) => line.includes("pid-shared"))).toHaveLength(2);
  });

  it("refuses a forged completion: events before consent, sessions without events, client timestamps and quick reloads count for nothing", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const rule = { after_sessions: 2, min_session_gap_minutes: 30, code: "PAID" };
    expect((await patch(experiment.id, { consent_text: "Agree?", completion: rule })).status).toBe(200);
    const p = await joinParticipant(app, experiment.id, "forger");
    const events = (times: readonly string[]) =>
      p.client.post("/api/v1/events", {
        session_id: p.sessionId,
        events: times.map((timestamp) => wireEvent("WINDOW_FOCUS", { timestamp })),
      });
    // Before consent nothing is collected.
    const early = await events(["2026-11-24T12:00:00.000Z"]);
    expect([early.status, codeOf(early)]).toEqual([403, "consent_required"]);
    expect(
      (
        await admin.get<{ items: { events: number }[] }>(
          `/api/v1/admin/experiments/${experiment.id}/participants`,
        )
      ).body.items[0]?.events,
    ).toBe(0);
    expect((await p.client.post("/api/v1/participants/consent", { agree: true })).status).toBe(204);

    // Five sessions registered without an event count for nothing.
    for (let i = 0; i < 5; i++) await newSession(p.client);
    expect((await me(p.client)).progress).toMatchObject({ sessions: 0, feed_minutes: 0 });
    // Events whose client timestamps span three hours, sent at once: minutes by arrival, about none.
    const sent = await events(["2026-11-24T09:00:00.000Z", "2026-11-24T12:00:00.000Z"]);
    expect(sent.status).toBe(202);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    expect((await me(p.client)).progress.feed_minutes).toBeLessThan(0.05);
    // Reloads minutes apart are one visit under a 30-minute gap: no code.
    await visit(app, p.client);
    await visit(app, p.client);
    expect(await me(p.client)).toMatchObject({
      status: "active",
      completion: null,
      progress: { sessions: 1 },
    });
    // Without the gap the same sessions count: the rule is what stood in the way.
    expect((await patch(experiment.id, { completion: { ...rule, min_session_gap_minutes: 0 } })).status).toBe(
      200,
    );
    expect(await me(p.client)).toMatchObject({ status: "finished", completion: { code: "PAID" } });
  });

  it("shows no code before an active post survey is answered or dismissed when the rule has a code but does not wait for the survey", async () => {
    // The common Prolific set-up: a session, then a completion code and a redirect.
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const post = await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    await patch(experiment.id, {
      completion: {
        after_sessions: 1,
        code: "PROLIFIC-1",
        redirect_url: "https://example.org/done?cc={code}",
      },
    });
    for (const [login, ends] of [
      ["answers", "answer"],
      ["closes", "dismiss"],
    ] as const) {
      const p = await joinParticipant(app, experiment.id, login);
      await visit(app, p.client, p.sessionId);
      expect(await pending(p.client, p.sessionId)).toMatchObject({ survey: { id: post.id }, forced: false });
      expect(await me(p.client)).toMatchObject({ status: "active", completion: null });
      const done =
        ends === "answer"
          ? await answer(p.client, post.id, p.sessionId)
          : await p.client.post(`/api/v1/surveys/${post.id}/dismissals`, { session_id: p.sessionId });
      expect(done.status).toBe(ends === "answer" ? 201 : 204);
      expect(await me(p.client)).toMatchObject({
        status: "finished",
        completion: { code: "PROLIFIC-1", redirect_url: "https://example.org/done?cc=PROLIFIC-1" },
      });
    }
  });

  it("finishes a participant at once when the rule's conditions are reached and no post survey is active", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    await createSurvey(admin, experiment.id, { kind: "post", is_active: false });
    await patch(experiment.id, { completion: { after_sessions: 1, code: "NO-SURVEY" } });
    const p = await joinParticipant(app, experiment.id, "no-post");
    await visit(app, p.client, p.sessionId);
    expect(await me(p.client)).toMatchObject({ status: "finished", completion: { code: "NO-SURVEY" } });
  });

  it("finishes everyone on a completed study when the completion has no conditions", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    await patch(experiment.id, { completion: { code: "THANKS" } });
    const p = await joinParticipant(app, experiment.id, "until-the-end");
    expect((await me(p.client)).status).toBe("active");
    await patch(experiment.id, { status: "completed" });
    expect(await me(p.client)).toMatchObject({
      status: "finished",
      completion: { code: "THANKS", redirect_url: null },
    });
  });

  it("closes the pages of a paused study to returning participants, and of a completed one keeps the surveys", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const post = await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    const p = await joinParticipant(app, experiment.id, "returning");
    expect((await p.client.get(`/feed?session_id=${p.sessionId}`)).status).toBe(200);

    await patch(experiment.id, { status: "paused" });
    const paused = await p.client.get(`/feed?session_id=${p.sessionId}`);
    expect([paused.status, codeOf(paused)]).toEqual([403, "experiment_paused"]);
    expect(codeOf(await p.client.get(`/api/v1/surveys/pending?session_id=${p.sessionId}`))).toBe(
      "experiment_paused",
    );
    expect((await me(p.client)).experiment_status).toBe("paused");

    await patch(experiment.id, { status: "completed" });
    const closed = await p.client.get(`/feed?session_id=${p.sessionId}`);
    expect([closed.status, codeOf(closed)]).toEqual([403, "experiment_not_open"]);
    expect(await pending(p.client, p.sessionId)).toMatchObject({ survey: { id: post.id } });
  });

  it("lets a draft's simulated participants onto the feed and watch pages and no one else, and keeps a pause closed to them", async () => {
    const { experiment, videos } = await createStudy(admin, { status: "draft", videoCount: 2 });
    const video = videos[0]?.id;
    const pages = (sessionId: string) => [
      `/feed?session_id=${sessionId}`,
      `/api/v1/videos/${video}`,
      `/feed/${video}/related?session_id=${sessionId}`,
    ];
    const simulated = await joinSimulated(app, experiment.id, "sim-draft");
    for (const path of pages(simulated.sessionId))
      expect([path, (await simulated.client.get(path)).status]).toEqual([path, 200]);
    // A real participant an admin registered on the draft (joining it is refused) stays outside.
    const added = await admin.post<{ user_id: string }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
      {
        login_id: "sim-but-real",
      },
    );
    const real = app.client();
    real.cookies.set(
      PARTICIPANT_COOKIE,
      (await app.runtime.services.auth.issueParticipantSession(added.body.user_id)).token,
    );
    const session = await newSession(real);
    for (const path of pages(session)) {
      const r = await real.get(path);
      expect([path, r.status, codeOf(r)]).toEqual([path, 403, "experiment_not_open"]);
    }
    expect((await me(simulated.client)).simulated).toBe(true);
    expect((await me(real)).simulated).toBe(false);
    await patch(experiment.id, { status: "paused" });
    expect(codeOf(await simulated.client.get(`/feed?session_id=${simulated.sessionId}`))).toBe(
      "experiment_paused",
    );
  });

  it("refuses to start a study whose completion waits for a post survey it does not have", async () => {
    const { experiment } = await createStudy(admin, { status: "draft", videoCount: 1 });
    await patch(experiment.id, { completion: { after_sessions: 1, after_post_survey: true } });
    const r = await patch(experiment.id, { status: "running" });
    expect([r.status, codeOf(r)]).toEqual([422, "experiment_not_ready"]);
    expect(detailsOf<{ problems: { problem: string }[] }>(r)?.problems.map((p) => p.problem)).toEqual([
      "no_post_survey",
    ]);
    await createSurvey(admin, experiment.id, { kind: "post", is_active: true });
    expect((await patch(experiment.id, { status: "running" })).status).toBe(200);
  });

  it("refuses a redirect that is not a web address or has placeholders Feedlab cannot fill", async () => {
    const { experiment } = await createStudy(admin, { status: "draft", videoCount: 1 });
    for (const redirect_url of ["javascript:alert(1)", "https://example.org/?x={participant}"]) {
      const r = await patch(experiment.id, { completion: { redirect_url } });
      expect([redirect_url, r.status, codeOf(r)]).toEqual([redirect_url, 422, "invalid_completion"]);
    }
    expect(
      (await admin.get<{ completion: unknown }>(`/api/v1/admin/experiments/${experiment.id}`)).body
        .completion,
    ).toBeNull();
    // Text PostgreSQL cannot store is bad input, not a server error.
    const nul = await patch(experiment.id, { consent_text: "I agree\u0000" });
    expect([nul.status, codeOf(nul)]).toEqual([422, "validation_failed"]);
  });

  it("takes a completion page delay from 0 to 60 s, defaults it to 5 s and refuses -1 and 61 naming the field", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const stored = async () =>
      (await admin.get<{ completion: unknown }>(`/api/v1/admin/experiments/${experiment.id}`)).body
        .completion;
    for (const redirect_delay_s of [0, 60]) {
      const r = await patch(experiment.id, { completion: { code: "DELAY", redirect_delay_s } });
      expect([redirect_delay_s, r.status]).toEqual([redirect_delay_s, 200]);
      expect(await stored()).toEqual({ code: "DELAY", redirect_delay_s });
    }
    for (const redirect_delay_s of [-1, 61, 2.5]) {
      const r = await patch(experiment.id, { completion: { code: "DELAY", redirect_delay_s } });
      expect([redirect_delay_s, r.status, codeOf(r)]).toEqual([redirect_delay_s, 422, "validation_failed"]);
      expect(JSON.stringify(r.body)).toContain('"completion.redirect_delay_s"');
    }
    expect(await stored()).toEqual({ code: "DELAY", redirect_delay_s: 60 });

    // Absent, the delay is 5 s, and every answer shows the 5 s in force: the PATCH's, the experiment's,
    // a rule stored before the field existed, and the participant's completion page.
    const rule = { after_sessions: 1, code: "DELAY", redirect_url: "https://example.org/done" };
    const inForce = { ...rule, redirect_delay_s: 5 };
    const patched = await patch(experiment.id, { completion: rule });
    expect([patched.status, (patched.body as { completion: unknown }).completion]).toEqual([200, inForce]);
    expect(await stored()).toEqual(inForce);
    await app.runtime
      .db("experiments")
      .where({ id: experiment.id })
      .update({ completion: JSON.stringify(rule) });
    expect(await stored()).toEqual(inForce);
    const p = await joinParticipant(app, experiment.id, "delayed");
    await visit(app, p.client, p.sessionId);
    expect(await me(p.client)).toMatchObject({
      status: "finished",
      completion: { code: "DELAY", redirect_url: "https://example.org/done", redirect_delay_s: 5 },
    });
  });

  it("lets an optional question be skipped and stores only the answers given", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const survey = await createSurvey(admin, experiment.id, {
      kind: "pre",
      is_active: true,
      questions: [
        {
          id: "age",
          text: "Your age group",
          type: "single",
          answers: [{ id: "a", text: "18-29", value: 1 }],
        },
        { id: "note", text: "Anything else?", type: "text", answers: [], required: false },
      ],
    });
    expect(survey.questions.map((q) => q.required)).toEqual([true, false]);
    const p = await joinParticipant(app, experiment.id, "skipper");
    const missing = await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: p.sessionId,
      answers: [{ questionId: "note", selections: [], textInput: "" }],
    });
    expect([missing.status, codeOf(missing)]).toEqual([422, "invalid_answers"]);
    const r = await p.client.post<{ answers: { questionId: string }[] }>(
      `/api/v1/surveys/${survey.id}/responses`,
      {
        session_id: p.sessionId,
        answers: [
          { questionId: "age", selections: ["a"] },
          { questionId: "note", selections: [], textInput: "  " },
        ],
      },
    );
    expect(r.status).toBe(201);
    expect(r.body.answers.map((a) => a.questionId)).toEqual(["age"]);
  });

  it("records a dismissed survey once per session and refuses to dismiss a forced one", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const pre = await createSurvey(admin, experiment.id, { kind: "pre", is_active: true });
    const inter = await createSurvey(admin, experiment.id, { kind: "inter_session", is_active: true });
    const p = await joinParticipant(app, experiment.id, "dismisser");
    const forced = await p.client.post(`/api/v1/surveys/${pre.id}/dismissals`, { session_id: p.sessionId });
    expect([forced.status, codeOf(forced)]).toEqual([409, "survey_forced"]);
    const second = await newSession(p.client);
    const body = { session_id: second, about_session_id: p.sessionId };
    expect((await p.client.post(`/api/v1/surveys/${inter.id}/dismissals`, body)).status).toBe(204);
    expect((await p.client.post(`/api/v1/surveys/${inter.id}/dismissals`, body)).status).toBe(204);
    const listed = await admin.get<{ dismissal_count: number }[]>(
      `/api/v1/admin/experiments/${experiment.id}/surveys`,
    );
    expect(listed.body.find((s) => (s as unknown as { id: string }).id === inter.id)?.dismissal_count).toBe(
      1,
    );
  });

  it("records a change of a running arm's algorithm or UI with who and when, and not a draft's", async () => {
    const { experiment, groups } = await createStudy(admin, { status: "draft", weights: [1], videoCount: 1 });
    const group = groups[0];
    const edit = (body: unknown) => admin.patch(`/api/v1/admin/groups/${group?.id}`, body);
    expect((await edit({ algorithm_config: { feed: "random", watch: "recency" } })).status).toBe(200);
    await patch(experiment.id, { status: "running" });
    expect(
      (await edit({ algorithm_config: { feed: "popularity", watch: "recency" }, name: "Arm A" })).status,
    ).toBe(200);
    expect((await edit({ weight: 2 })).status).toBe(200); // not a change of what participants see
    const changes = await admin.get<Record<string, unknown>[]>(
      `/api/v1/admin/experiments/${experiment.id}/changes`,
    );
    expect(changes.body).toEqual([
      {
        group_id: group?.id,
        group_name: "Arm A",
        field: "algorithm_feed",
        old_value: "random",
        new_value: "popularity",
        admin: "admin",
        changed_at: expect.any(String),
      },
    ]);
  });

  it("refuses to delete a video of a running study's pool or an arm with participants, with counts", async () => {
    const { experiment, groups, videos } = await createStudy(admin, {
      status: "running",
      weights: [1],
      videoCount: 2,
      name: "Running pool",
    });
    const video = videos[0]?.id;
    const usage = await admin.get<{ experiments: { id: string }[] }>(`/api/v1/admin/videos/${video}/usage`);
    expect(usage.body.experiments.map((e) => e.id)).toEqual([experiment.id]);
    const refused = await admin.del(`/api/v1/admin/videos/${video}`);
    expect([refused.status, codeOf(refused)]).toEqual([409, "video_in_running_study"]);
    expect(detailsOf<{ experiments: { name: string }[] }>(refused)?.experiments).toEqual([
      { id: experiment.id, name: "Running pool" },
    ]);
    expect((await admin.get(`/api/v1/admin/videos/${video}`)).status).toBe(200);

    await joinParticipant(app, experiment.id, "one");
    await joinParticipant(app, experiment.id, "two");
    const arm = await admin.del(`/api/v1/admin/groups/${groups[0]?.id}`);
    expect([arm.status, codeOf(arm), detailsOf<{ participants: number }>(arm)?.participants]).toEqual([
      409,
      "group_has_participants",
      2,
    ]);

    await patch(experiment.id, { status: "paused" });
    expect((await admin.del(`/api/v1/admin/videos/${video}`)).status).toBe(204);
  });

  it("excludes a participant from the stats with a reason, keeps them in the data and flags them in the CSV", async () => {
    const { experiment, groups } = await createStudy(admin, {
      status: "running",
      weights: [1],
      videoCount: 1,
    });
    const kept = await joinParticipant(app, experiment.id, "kept");
    const dropped = await joinParticipant(app, experiment.id, "dropped");
    for (const p of [kept, dropped]) await visit(app, p.client, p.sessionId);
    const exclude = (body: unknown) =>
      admin.patch(`/api/v1/admin/participants/${dropped.user.user_id}`, body);
    const noReason = await exclude({ excluded: true });
    expect([noReason.status, codeOf(noReason)]).toEqual([422, "reason_required"]);
    expect((await exclude({ excluded: true, reason: "Bot-like clicking" })).status).toBe(204);

    const stats = await admin.get<{ groups: { participants: number; excluded_participants: number }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/stats`,
    );
    expect(stats.body.groups[0]).toMatchObject({ participants: 1, excluded_participants: 1 });
    const listed = await admin.get<{
      items: { login_id: string; excluded_reason: string | null; sessions: number }[];
    }>(`/api/v1/admin/experiments/${experiment.id}/participants`);
    expect(listed.body.items.map((p) => [p.login_id, p.excluded_reason, p.sessions])).toEqual([
      ["kept", null, 1],
      ["dropped", "Bot-like clicking", 1],
    ]);
    const csv = (await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`)).text;
    const [header = "", ...lines] = csv.trim().split("\r\n");
    const names = header.split(",");
    const cells = (login: string) => {
      const row = lines.find((l) => l.includes(`,${login},`))?.split(",") ?? [];
      return [row[names.indexOf("excluded")], row[names.indexOf("excluded_reason")]];
    };
    expect(cells("dropped")).toEqual(["true", "Bot-like clicking"]);
    expect(cells("kept")).toEqual(["false", ""]);

    expect((await exclude({ excluded: false })).status).toBe(204);
    const back = await admin.get<{ groups: { participants: number }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/stats`,
    );
    expect(back.body.groups[0]?.participants).toBe(2);
    expect(groups).toHaveLength(1);
    expect(kept.user.user_id).not.toBe(dropped.user.user_id);
  });
});
