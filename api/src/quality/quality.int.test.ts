import { randomUUID } from "node:crypto";
import type { ExclusionRule, ExperimentQuality, ExperimentStats, ParticipantQuality } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { untilWaitingForLocks } from "../../../test/harness/locks.ts";
import { createSurvey } from "../../../test/harness/surveys.ts";
import { MIGRATIONS } from "../db/migrations/index.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";
import { respondentsOf } from "../surveys/queries/answers.queries.ts";
import { rejudgeSurvey } from "../surveys/verdicts.ts";
import { QUALITY_CSV_COLUMNS } from "./quality.csv.ts";
import {
  type Behaviour,
  joinWith,
  plantedSession,
  QUALITY_SURVEY,
  surveyAnswers,
} from "./quality.fixture.ts";
import { excludedByRules } from "./quality.service.ts";
import { refreshSurveyMeasures } from "./survey-measures.ts";

/** Varied answers on the five items, and the attentive answer to the check. */
const VARIED = [1, 2, 4, 5, 3] as const;

/** Feed impressions and clicks of the planted participants, in PLANTED's order. */
const FEED = [
  { impressions: 10, clicks: 1 },
  { impressions: 20, clicks: 5 },
  { impressions: 8, clicks: 4 },
  { impressions: 12, clicks: 0 },
  { impressions: 5, clicks: 5 },
  { impressions: 30, clicks: 3 },
  { impressions: 6, clicks: 6 },
  { impressions: 9, clicks: 2 },
  { impressions: 4, clicks: 4 },
];

/** Each planted participant: their behaviour, their survey (answers, seconds) and the flags it earns. */
const PLANTED: Record<
  string,
  {
    behaviour?: Behaviour;
    values?: readonly [number, number, number, number, number];
    check?: number;
    seconds?: number;
    pid?: string;
    flags: string[];
  }
> = {
  clean: { flags: [] },
  phone: { behaviour: { viewport: 390, pointer: false }, flags: [] },
  hidden: { behaviour: { hidden: true }, flags: ["hidden_tab"] },
  "no-pointer": { behaviour: { pointer: false }, flags: ["no_pointer"] },
  speeder: { seconds: 6, flags: ["speeding"] },
  "straight-liner": { values: [3, 3, 3, 3, 3], flags: ["straight_lined"] },
  inattentive: { check: 2, flags: ["failed_attention_check"] },
  "dup-a": { pid: "5f0c2e7a51a51c1e9a510f4d", flags: ["duplicate_recruiting_id"] },
  "dup-b": { pid: "5f0c2e7a51a51c1e9a510f4d", flags: ["duplicate_recruiting_id"] },
};

describe.each(BACKENDS)("participant quality (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let experimentId: string;
  let surveyId: string;
  const users = new Map<string, Joined>();

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    const study = await createStudy(admin, { status: "running", videoCount: 1, weights: [1] });
    experimentId = study.experiment.id;
    const survey = await createSurvey(admin, experimentId, {
      kind: "pre",
      is_active: true,
      questions: QUALITY_SURVEY,
    });
    surveyId = survey.id;
    const start = Date.now() - 3_600_000;
    for (const [login, p] of Object.entries(PLANTED)) {
      const joined = await joinWith(app, experimentId, login, p.pid ? { PROLIFIC_PID: p.pid } : undefined);
      users.set(login, joined);
      const events = plantedSession(p.behaviour ?? {}, start);
      // The clean participant's last batch (the unload's) arrives before the one before it.
      const batches = [events.slice(0, 20), events.slice(20)];
      if (login === "clean") batches.reverse();
      for (const batch of batches) expect((await sendEvents(joined, batch)).body.rejected).toEqual([]);
      // Feed impressions and clicks, different per participant, for /stats with the rules: in a session
      // of their own, all at one instant, so that they add no time to the measures above.
      const feed = FEED[users.size - 1] ?? { impressions: 0, clicks: 0 };
      const at = { timestamp: new Date(start).toISOString() };
      const clicks = [
        ...Array.from({ length: feed.impressions }, () =>
          wireEvent("IMPRESSION", { ...at, payload: { context: "feed" } }),
        ),
        ...Array.from({ length: feed.clicks }, () => wireEvent("FEED_CLICK", at)),
      ];
      const second = { ...joined, sessionId: randomUUID() };
      expect((await joined.client.post("/sessions", { session_id: second.sessionId })).status).toBe(201);
      expect((await sendEvents(second, clicks)).body.rejected).toEqual([]);
      const r = await joined.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: joined.sessionId,
        answers: surveyAnswers(p.values ?? VARIED, p.check ?? 4),
        duration_ms: (p.seconds ?? 30) * 1000,
      });
      expect(r.status).toBe(201);
    }
    const sim = await joinSimulated(app, experimentId, "sim-1");
    expect((await sendEvents(sim, plantedSession({}, start))).body.rejected).toEqual([]);
    users.set("sim-1", sim);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const quality = (query = "") =>
    admin.get<ExperimentQuality>(`/api/v1/admin/experiments/${experimentId}/quality${query}`);
  const byLogin = (list: readonly ParticipantQuality[]) => new Map(list.map((p) => [p.login_id, p]));

  it("flags exactly the planted behaviours, and no one else", async () => {
    const r = await quality();
    expect(r.status).toBe(200);
    const got = byLogin(r.body.participants);
    expect([...got.keys()]).toEqual(Object.keys(PLANTED));
    for (const [login, p] of Object.entries(PLANTED)) expect(got.get(login)?.flags, login).toEqual(p.flags);
    expect(r.body.total).toBe(9);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.groups).toEqual([
      expect.objectContaining({ participants: 9, flagged: 7, excluded_by_rules: 0 }),
    ]);
  });

  it("measures the planted times, counts and answers as docs/quality.md defines them", async () => {
    const got = byLogin((await quality()).body.participants);
    // Clean: active 0 to 120 s (the page's exit), visit 120.2 s, 30 s of visible playback, 20 mouse
    // events, 30 s over 6 questions; its batches arrived out of order, and count as in order.
    expect(got.get("clean")).toMatchObject({
      active_seconds: 120,
      hidden_share: 0,
      watch_seconds: 30,
      visible_watch_seconds: 30,
      pointer_events: 20,
      viewport_width: 1280,
      seconds_per_question: 5,
      straight_lined: false,
      attention: { passed: 1, failed: 0 },
      duplicate_recruiting_id: false,
      excluded_by_rules: false,
    });
    // Hidden: active 100.5 + 20 s; hidden 199.5 s of a 320.2 s visit.
    expect(got.get("hidden")?.active_seconds).toBe(120.5);
    expect(got.get("hidden")?.hidden_share).toBeCloseTo(199.5 / 320.2, 4);
    expect(got.get("hidden")?.pointer_events).toBe(23);
    expect(got.get("no-pointer")).toMatchObject({ pointer_events: 0, viewport_width: 1280 });
    expect(got.get("phone")).toMatchObject({ pointer_events: 0, viewport_width: 390 });
    expect(got.get("speeder")?.seconds_per_question).toBe(1);
    expect(got.get("straight-liner")).toMatchObject({
      straight_lined: true,
      attention: { passed: 1, failed: 0 },
    });
    expect(got.get("inattentive")?.attention).toEqual({ passed: 0, failed: 1 });
  });

  it("pages participants with a cursor, keeps the flagged ones, and adds simulated ones only when asked", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: ExperimentQuality } = await quality(
        `?flagged=true&limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(7);
      seen.push(...page.body.participants.map((p) => p.login_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(
      Object.entries(PLANTED)
        .filter(([, p]) => p.flags.length > 0)
        .map(([l]) => l),
    );
    const all = await quality("?include_simulated=true");
    expect(all.body.total).toBe(10);
    expect(byLogin(all.body.participants).get("sim-1")?.flags).toEqual([]);
    expect((await quality("?cursor=nonsense")).status).toBe(400);
    const unknown = await admin.get("/api/v1/admin/experiments/00000000-0000-4000-8000-000000000000/quality");
    expect(unknown.status).toBe(404);
    expect((await app.client().get(`/api/v1/admin/experiments/${experimentId}/quality`)).status).toBe(401);
  });

  it("gives one participant's quality exactly as the experiment's list gives it, and 404 for anyone else", async () => {
    const all = byLogin((await quality("?include_simulated=true")).body.participants);
    for (const [login, joined] of users) {
      const one = await admin.get<ParticipantQuality>(`/api/v1/admin/participants/${joined.userId}/quality`);
      expect(one.status, login).toBe(200);
      expect(one.body, login).toEqual(all.get(login));
    }
    const unknown = await admin.get<{ error: { code: string } }>(
      "/api/v1/admin/participants/00000000-0000-4000-8000-000000000000/quality",
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const id = users.get("clean")?.userId;
    expect((await app.client().get(`/api/v1/admin/participants/${id}/quality`)).status).toBe(401);
  });

  it("judges the stored responses again when the survey's attention check changes", async () => {
    const edit = (check: number) =>
      admin.put(`/api/v1/admin/surveys/${surveyId}`, {
        name: "pre survey",
        kind: "pre",
        questions: QUALITY_SURVEY.map((q) => (q.id === "att" ? { ...q, attention_answer: check } : q)),
      });
    try {
      // "Disagree" (2) now is what an attentive participant answers: only the inattentive one gave it.
      expect((await edit(2)).status).toBe(200);
      const got = byLogin((await quality()).body.participants);
      expect(got.get("inattentive")?.attention).toEqual({ passed: 1, failed: 0 });
      expect(got.get("clean")?.attention).toEqual({ passed: 0, failed: 1 });
      expect(got.get("clean")?.flags).toEqual(["failed_attention_check"]);
    } finally {
      expect((await edit(4)).status).toBe(200);
    }
    const back = byLogin((await quality()).body.participants);
    expect(back.get("inattentive")?.attention).toEqual({ passed: 0, failed: 1 });
    expect(back.get("clean")?.flags).toEqual([]);
  });

  it("appends the quality columns to the participants CSV, after every other column", async () => {
    const r = await admin.get(`/api/v1/admin/experiments/${experimentId}/participants?format=csv`);
    const [header, ...rows] = r.text.trim().split("\r\n");
    expect(header?.endsWith(`,excluded,excluded_reason,${QUALITY_CSV_COLUMNS.join(",")}`)).toBe(true);
    const hidden = rows.find((row) => row.includes(",hidden,"))?.split(",") ?? [];
    const column = (name: string) => hidden[header?.split(",").indexOf(name) ?? -1];
    expect(column("active_seconds")).toBe("120.5");
    expect(column("pointer_events")).toBe("23");
    expect(column("quality_flags")).toBe("hidden_tab");
    expect(column("attention_passed")).toBe("1");
  });

  it("excludes by the experiment's rules exactly the participants they hold for", async () => {
    const rules: ExclusionRule[] = [
      { measure: "attention_failed", op: ">=", value: 1 },
      { measure: "hidden_share", op: ">", value: 0.5 },
      { measure: "seconds_per_question", op: "<", value: 2 },
      { measure: "duplicate_recruiting_id", op: "==", value: true },
    ];
    expect(
      (await admin.patch(`/api/v1/admin/experiments/${experimentId}`, { exclusion_rules: rules })).status,
    ).toBe(200);
    const r = await quality();
    const excluded = r.body.participants.filter((p) => p.excluded_by_rules).map((p) => p.login_id);
    expect(excluded).toEqual(["hidden", "speeder", "inattentive", "dup-a", "dup-b"]);
    expect(r.body.groups[0]?.excluded_by_rules).toBe(5);
    // The function /stats calls: the rules each participant breaks, those left out aside.
    const leftOut = new Set([users.get("dup-b")?.userId ?? "", users.get("sim-1")?.userId ?? ""]);
    const broken = await excludedByRules(app.runtime.db, experimentId, rules, leftOut);
    const id = (login: string) => users.get(login)?.userId;
    expect(new Map([...broken].map(([u, list]) => [u, list.rules.map((x) => x.measure)]))).toEqual(
      new Map([
        [id("hidden"), ["hidden_share"]],
        [id("speeder"), ["seconds_per_question"]],
        [id("inattentive"), ["attention_failed"]],
        [id("dup-a"), ["duplicate_recruiting_id"]],
      ]),
    );
  });

  it("leaves out of /stats with exclusions=rules exactly whom the rules exclude, with the rates a hand computation gives", async () => {
    // The rules of the test above exclude hidden, speeder, inattentive, dup-a and dup-b. The researcher
    // excludes "clean" by hand, which always applies. Left: phone, no-pointer and straight-liner.
    const clean = users.get("clean")?.userId ?? "";
    expect(
      (
        await admin.patch(`/api/v1/admin/participants/${clean}`, {
          excluded: true,
          reason: "Saw the study before",
        })
      ).status,
    ).toBe(204);
    const stats = await admin.get<ExperimentStats>(
      `/api/v1/admin/experiments/${experimentId}/stats?exclusions=rules`,
    );
    expect(stats.status).toBe(200);
    const arm = stats.body.groups[0];
    const logins = Object.keys(PLANTED);
    const kept = ["phone", "no-pointer", "straight-liner"].map(
      (l) => FEED[logins.indexOf(l)] ?? { impressions: 0, clicks: 0 },
    );
    const impressions = kept.reduce((s, f) => s + f.impressions, 0);
    const clicks = kept.reduce((s, f) => s + f.clicks, 0);
    expect(arm).toMatchObject({
      participants: 3,
      excluded_participants: 1,
      excluded_by_rules: 5,
      impressions,
      feed_clicks: clicks,
    });
    expect(arm?.ctr.value).toBeCloseTo(clicks / impressions, 12);
    expect(arm?.rule_exclusions).toEqual([
      { rule: "attention_failed >= 1", excluded: 1 },
      { rule: "hidden_share > 0.5", excluded: 1 },
      { rule: "seconds_per_question < 2", excluded: 1 },
      { rule: "duplicate_recruiting_id == true", excluded: 2 },
    ]);
    // Without the rules, only the researcher's exclusion applies.
    const manual = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${experimentId}/stats`);
    expect(manual.body.groups[0]).toMatchObject({ participants: 8, excluded_participants: 1 });
    expect(manual.body.groups[0]?.excluded_by_rules).toBeUndefined();
  });

  it("fills each participant's survey sums from the responses a database already holds, as they are kept", async () => {
    const db = app.runtime.db;
    const kept = await db("participant_survey_measures").orderBy("user_id").select();
    expect(kept.length).toBeGreaterThan(0);
    // When the table is made again by the migration that added it, then it holds the same sums.
    const added = MIGRATIONS.find((m) => m.name === "033-survey-measures");
    if (added === undefined) throw new Error("migration 033 is gone");
    await added.down(db);
    expect(await db.schema.hasTable("participant_survey_measures")).toBe(false);
    await added.up(db);
    expect(await db("participant_survey_measures").orderBy("user_id").select()).toEqual(kept);
  });

  it("judges the responses a database already holds when their verdict columns are added, as they are kept", async () => {
    const db = app.runtime.db;
    const columns = ["id", "straight_lined", "attention_passed", "attention_failed"];
    const kept = (await db("survey_responses").orderBy("id").select(columns)) as {
      straight_lined: boolean;
      attention_failed: number;
    }[];
    // The planted participants hold a straight-lined response and a failed attention check.
    expect(kept.some((r) => r.straight_lined)).toBe(true);
    expect(kept.some((r) => Number(r.attention_failed) > 0)).toBe(true);
    const added = MIGRATIONS.find((m) => m.name === "032-survey-verdicts");
    if (added === undefined) throw new Error("migration 032 is gone");
    await added.down(db);
    expect(await db.schema.hasColumn("survey_responses", "straight_lined")).toBe(false);
    await added.up(db);
    expect(await db("survey_responses").orderBy("id").select(columns)).toEqual(kept);
  });

  it("judges a response stored while its survey is being saved by the questions that survey is saved with", async () => {
    // Runs last: it adds a participant. A researcher's save holds the survey (its transaction open, its
    // new questions not yet committed) while a participant submits; the response must not keep the
    // verdict of the questions being replaced.
    const late = await joinWith(app, experimentId, "late");
    const questions = QUALITY_SURVEY.map((q) => (q.id === "att" ? { ...q, attention_answer: 2 } : q));
    const db = app.runtime.db;
    const trx = await db.transaction();
    let submitted: Promise<{ status: number }> | undefined;
    try {
      await trx("surveys")
        .where({ id: surveyId })
        .update({ questions: JSON.stringify(questions) });
      await rejudgeSurvey(trx, surveyId);
      await refreshSurveyMeasures(trx, experimentId, await respondentsOf(trx, surveyId));
      submitted = late.client.post(`/api/v1/surveys/${surveyId}/responses`, {
        session_id: late.sessionId,
        answers: surveyAnswers(VARIED, 2),
        duration_ms: 30_000,
      });
      // The submit reaches the survey's row and waits there until the save commits.
      await untilWaitingForLocks(trx, backend, 1);
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect((await submitted)?.status).toBe(201);
    const one = await admin.get<ParticipantQuality>(`/api/v1/admin/participants/${late.userId}/quality`);
    expect(one.body.attention).toEqual({ passed: 1, failed: 0 });
  });

  it("counts both surveys a participant answers at once, and only the one left after the other is deleted", async () => {
    // Runs last, with a participant of its own. Their row is held until both submits wait for it (to
    // store their answers), so both go on at once: each sums the measures while the other's answer is
    // stored and not yet committed.
    const both = await joinWith(app, experimentId, "both");
    const pre = { name: "pre survey", kind: "pre", questions: QUALITY_SURVEY };
    expect((await admin.put(`/api/v1/admin/surveys/${surveyId}`, pre)).status).toBe(200);
    const post = await createSurvey(admin, experimentId, {
      kind: "post",
      is_active: true,
      questions: QUALITY_SURVEY,
    });
    const db = app.runtime.db;
    const trx = await db.transaction();
    let answered: Promise<{ status: number }[]> | undefined;
    try {
      await trx("users").where({ id: both.userId }).forUpdate().first("id");
      const submit = (id: string, check: number, seconds: number) =>
        both.client.post(`/api/v1/surveys/${id}/responses`, {
          session_id: both.sessionId,
          answers: surveyAnswers(VARIED, check),
          duration_ms: seconds * 1000,
        });
      answered = Promise.all([submit(surveyId, 4, 30), submit(post.id, 4, 60)]);
      await untilWaitingForLocks(trx, backend, 2);
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect((await answered)?.map((r) => r.status)).toEqual([201, 201]);
    const mine = async () =>
      (await admin.get<ParticipantQuality>(`/api/v1/admin/participants/${both.userId}/quality`)).body;
    const questions = QUALITY_SURVEY.length;
    expect(await mine()).toMatchObject({
      attention: { passed: 2, failed: 0 },
      seconds_per_question: Math.round((90 / (2 * questions)) * 1000) / 1000,
    });
    expect((await admin.del(`/api/v1/admin/surveys/${post.id}`)).status).toBe(204);
    expect(await mine()).toMatchObject({
      attention: { passed: 1, failed: 0 },
      seconds_per_question: Math.round((30 / questions) * 1000) / 1000,
    });
  });
});
