import type { ExperimentCompleteness, ExperimentMonitor, ExperimentTimeline } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey, sampleAnswers } from "../../../test/harness/surveys.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";

describe.each(BACKENDS)("completeness and live monitoring (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const settled = async () =>
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);
  // Client times of a moment ago, as a browser with a right clock sends them.
  const numbered = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) =>
      wireEvent("PAGE_LOAD", { seq: from + i, timestamp: new Date(Date.now() - 2000).toISOString() }),
    );

  it("gives each participant's clock offset, counts client times in the future or a day before arrival, and keeps only clocks off with clock_off=true", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1] });
    const right = await joinWithSession(app.client(), study.experiment.id, "right-clock");
    await deliverEvents(right, numbered(1, 3));
    const ahead = await joinWithSession(app.client(), study.experiment.id, "clock-ahead");
    // A clock ten minutes ahead, and one event stamped in 1970 (a clock reset).
    const tenAhead = () => new Date(Date.now() + 600_000).toISOString();
    await deliverEvents(ahead, [
      wireEvent("PAGE_LOAD", { seq: 1, timestamp: tenAhead() }),
      wireEvent("PAGE_LOAD", { seq: 2, timestamp: tenAhead() }),
      wireEvent("PAGE_LOAD", { seq: 3, timestamp: "1970-01-01T00:00:01.000Z" }),
    ]);
    await settled();
    const r = await admin.get<ExperimentCompleteness>(
      `/api/v1/admin/experiments/${study.experiment.id}/completeness`,
    );
    const byLogin = new Map(r.body.participants.map((p) => [p.login_id, p]));
    const rightOffset = byLogin.get("right-clock")?.clock_offset_ms ?? Number.NaN;
    expect(rightOffset).toBeGreaterThanOrEqual(2000);
    expect(rightOffset).toBeLessThan(60_000);
    expect(byLogin.get("right-clock")?.implausible_times).toBe(0);
    const aheadOffset = byLogin.get("clock-ahead")?.clock_offset_ms ?? Number.NaN;
    expect(aheadOffset).toBeLessThan(-590_000);
    expect(aheadOffset).toBeGreaterThan(-600_000);
    expect(byLogin.get("clock-ahead")?.implausible_times).toBe(3);
    expect(r.body.groups[0]?.implausible_times).toBe(3);
    const off = await admin.get<ExperimentCompleteness>(
      `/api/v1/admin/experiments/${study.experiment.id}/completeness?clock_off=true`,
    );
    expect(off.body.participants.map((p) => p.login_id)).toEqual(["clock-ahead"]);
    expect(off.body.total).toBe(1);
    // The arms still count every participant.
    expect(off.body.groups[0]?.participants).toBe(2);

    // The export flags each implausible time instead of passing it silently.
    const ndjson = await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/events?format=ndjson`);
    const rows = String(ndjson.text)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { login_id: string; timestamp_flag: string | null });
    const flags = (login: string) => rows.filter((e) => e.login_id === login).map((e) => e.timestamp_flag);
    expect(flags("right-clock")).toEqual([null, null, null]);
    expect(flags("clock-ahead").sort()).toEqual(["before_study", "future", "future"]);
  });

  it("counts a lost batch as a gap in the session's seq, per participant and arm, and flags the participant", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1] });
    const lossy = await joinWithSession(app.client(), study.experiment.id, "lossy");
    // Three batches of five; the second never arrives.
    await deliverEvents(lossy, numbered(1, 5));
    await deliverEvents(lossy, numbered(11, 15));
    const whole = await joinWithSession(app.client(), study.experiment.id, "whole");
    await deliverEvents(whole, numbered(1, 10));
    // An API client's events carry no seq: counted, never a gap.
    await deliverEvents(whole, [wireEvent("PAGE_LOAD", { timestamp: new Date().toISOString() })]);
    await settled();

    const r = await admin.get<ExperimentCompleteness>(
      `/api/v1/admin/experiments/${study.experiment.id}/completeness`,
    );
    expect(r.status).toBe(200);
    const byLogin = new Map(r.body.participants.map((p) => [p.login_id, p]));
    expect(byLogin.get("lossy")).toMatchObject({ sessions: 1, events: 10, missing: 5, flagged: true });
    expect(byLogin.get("lossy")?.loss_rate).toBeCloseTo(5 / 15, 10);
    expect(byLogin.get("whole")).toMatchObject({
      sessions: 1,
      events: 11,
      missing: 0,
      loss_rate: 0,
      flagged: false,
    });
    expect(r.body.groups).toEqual([
      {
        group_id: study.groups[0]?.id,
        name: study.groups[0]?.name,
        participants: 2,
        events: 21,
        missing: 5,
        loss_rate: 5 / 25,
        flagged: 1,
        implausible_times: 0,
      },
    ]);
    // A higher threshold flags nobody.
    const lenient = await admin.get<ExperimentCompleteness>(
      `/api/v1/admin/experiments/${study.experiment.id}/completeness?threshold=0.5`,
    );
    expect(lenient.body.participants.every((p) => !p.flagged)).toBe(true);
    expect(
      (await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/completeness?threshold=2`)).status,
    ).toBe(422);
  });

  it("pages completeness's participants in join order, keeps gaps or flagged ones on request, and counts every one per arm", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1] });
    const logins = ["c-1", "c-2", "c-3", "c-4", "c-5"];
    for (const [i, login] of logins.entries()) {
      const p = await joinWithSession(app.client(), study.experiment.id, login);
      // c-2 loses one event of ten (0.1, flagged at 0.05), c-4 one of thirty (0.033, a gap, not flagged).
      const last = i === 3 ? 30 : 10;
      const lost = i === 1 || i === 3 ? [last - 1] : [];
      await deliverEvents(
        p,
        numbered(1, last).filter((_, k) => !lost.includes(k + 1)),
      );
    }
    await settled();
    const base = `/api/v1/admin/experiments/${study.experiment.id}/completeness`;
    const all: string[] = [];
    let cursor = "";
    for (let n = 0; n < 5; n++) {
      const r = await admin.get<ExperimentCompleteness>(`${base}?limit=2${cursor}`);
      expect([r.status, r.body.total, r.body.participants.length <= 2]).toEqual([200, 5, true]);
      expect(r.body.groups[0]?.participants).toBe(5);
      all.push(...r.body.participants.map((p) => p.login_id));
      if (!r.body.next_cursor) break;
      cursor = `&cursor=${r.body.next_cursor}`;
    }
    expect(all).toEqual(logins);
    const only = async (query: string) => {
      const r = await admin.get<ExperimentCompleteness>(`${base}?${query}`);
      return [r.body.participants.map((p) => p.login_id), r.body.total, r.body.groups[0]?.flagged];
    };
    expect(await only("gaps=true")).toEqual([["c-2", "c-4"], 2, 1]);
    expect(await only("flagged=true")).toEqual([["c-2"], 1, 1]);
    expect(await only("flagged=true&threshold=0.01")).toEqual([["c-2", "c-4"], 2, 2]);
    expect(await only("gaps=true&limit=1")).toEqual([["c-2"], 2, 1]);
    const bad = await admin.get(`${base}?cursor=nope`);
    expect([bad.status, codeOf(bad)]).toEqual([400, "invalid_cursor"]);
  });

  it("flags assignment that departs from the weights, and shows activity, survey completion and rejected events per arm", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1, 1] });
    const [a, b] = study.groups;
    // The researcher put 30 participants in A by hand and 6 in B.
    for (let i = 0; i < 36; i++) {
      const r = await admin.post(`/api/v1/admin/experiments/${study.experiment.id}/participants`, {
        login_id: `hand-${i}`,
        group_id: i < 30 ? a?.id : b?.id,
      });
      expect(r.status).toBe(201);
    }
    const survey = await createSurvey(admin, study.experiment.id, { kind: "pre", is_active: true });
    const active = await joinWithSession(app.client(), study.experiment.id, "active-one");
    await deliverEvents(active, [wireEvent("PAGE_LOAD", { seq: 1 })]);
    const reply = await sendEvents(active, [wireEvent("PAGE_LOAD", { event_type: "NOT_A_TYPE" })]);
    expect(reply.body.rejected).toHaveLength(1);
    const answered = await active.client.post(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: active.sessionId,
      answers: sampleAnswers(),
    });
    expect(answered.status).toBe(201);
    await settled();

    const r = await admin.get<ExperimentMonitor>(`/api/v1/admin/experiments/${study.experiment.id}/monitor`);
    expect(r.status).toBe(200);
    expect(r.body.sample_ratio.mismatch).toBe(true);
    expect(r.body.sample_ratio.p_value).toBeLessThan(0.001);
    const joinedGroup = r.body.groups.find((g) => g.participants === 31 || g.participants === 7);
    expect(joinedGroup?.active_now).toBe(1);
    expect(r.body.groups.map((g) => g.expected_share)).toEqual([0.5, 0.5]);
    expect(r.body.groups.reduce((s, g) => s + g.participants, 0)).toBe(37);
    const completion = r.body.surveys.find((s) => s.survey_id === survey.id);
    expect(completion?.groups.reduce((s, g) => s + g.responded, 0)).toBe(1);
    expect(r.body.problems).toContainEqual(
      expect.objectContaining({
        kind: "rejected_events",
        count: 1,
        message: expect.stringContaining("unknown_event_type"),
      }),
    );
  });

  it("leaves simulated participants out of completeness unless include_simulated=true", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1] });
    const real = await joinWithSession(app.client(), study.experiment.id, "real");
    await deliverEvents(real, numbered(1, 4));
    // The simulated participant lost a batch: a gap that would flag them and the arm.
    const simulated = await joinSimulated(app, study.experiment.id, "sim-lossy");
    await deliverEvents(simulated, [...numbered(1, 2), ...numbered(5, 6)]);
    await settled();
    const completeness = async (query: string) =>
      (
        await admin.get<ExperimentCompleteness>(
          `/api/v1/admin/experiments/${study.experiment.id}/completeness${query}`,
        )
      ).body;
    const realOnly = await completeness("");
    expect(realOnly.participants.map((p) => p.login_id)).toEqual(["real"]);
    expect(realOnly.groups[0]).toMatchObject({ participants: 1, events: 4, missing: 0, flagged: 0 });
    const all = await completeness("?include_simulated=true");
    expect(all.participants.map((p) => p.login_id)).toEqual(["real", "sim-lossy"]);
    expect(all.groups[0]).toMatchObject({ participants: 2, events: 8, missing: 2, flagged: 1 });
  });

  it("keeps simulated participants out of the monitor's participants, activity, survey completion and sample-ratio check", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1, 1] });
    const [a, b] = study.groups;
    // A dry run put 30 simulated participants in A: far from the weights, were they counted.
    for (let i = 0; i < 30; i++)
      await app.runtime.services.participants.createSimulated(study.experiment.id, `sim-a-${i}`, a?.id);
    const survey = await createSurvey(admin, study.experiment.id, { kind: "pre", is_active: true });
    const simulated = await joinSimulated(app, study.experiment.id, "sim-active");
    const real = await joinWithSession(app.client(), study.experiment.id, "real-a");
    await joinWithSession(app.client(), study.experiment.id, "real-b");
    for (const p of [simulated, real]) {
      await deliverEvents(p, [wireEvent("PAGE_LOAD", { seq: 1 })]);
      const answered = await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
      });
      expect(answered.status).toBe(201);
    }
    await settled();

    const r = await admin.get<ExperimentMonitor>(`/api/v1/admin/experiments/${study.experiment.id}/monitor`);
    expect(r.body.groups.map((g) => [g.group_id, g.participants, g.observed_share])).toEqual([
      [a?.id, 1, 0.5],
      [b?.id, 1, 0.5],
    ]);
    expect(r.body.sample_ratio).toEqual({ chi_square: 0, p_value: 1, mismatch: false });
    expect(r.body.groups.reduce((s, g) => s + g.active_now, 0)).toBe(1);
    const completion = r.body.surveys.find((s) => s.survey_id === survey.id);
    expect(completion?.groups.reduce((s, g) => s + g.responded, 0)).toBe(1);
    const timeline = await admin.get<ExperimentTimeline>(
      `/api/v1/admin/experiments/${study.experiment.id}/timeline`,
    );
    const joined = timeline.body.groups.flatMap((g) => g.points).reduce((s, p) => s + p.joined, 0);
    expect(joined).toBe(2);
  });

  it("answers results over time per arm: counts and joins per bucket", async () => {
    const study = await createStudy(admin, { status: "running", weights: [1] });
    const p = await joinWithSession(app.client(), study.experiment.id, "t1");
    await deliverEvents(p, [
      wireEvent("IMPRESSION", { payload: { context: "feed" } }),
      wireEvent("IMPRESSION", { payload: { context: "feed" } }),
      wireEvent("FEED_CLICK"),
    ]);
    await settled();
    const r = await admin.get<ExperimentTimeline>(
      `/api/v1/admin/experiments/${study.experiment.id}/timeline`,
    );
    expect(r.status).toBe(200);
    expect(r.body.bucket).toBe("minute");
    const points = r.body.groups[0]?.points ?? [];
    const sum = (k: "impressions" | "feed_clicks" | "joined") => points.reduce((s, x) => s + x[k], 0);
    expect([sum("impressions"), sum("feed_clicks"), sum("joined")]).toEqual([2, 1, 1]);
    const daily = await admin.get<ExperimentTimeline>(
      `/api/v1/admin/experiments/${study.experiment.id}/timeline?bucket=day`,
    );
    expect(daily.body.groups[0]?.points).toHaveLength(1);
  });

  it("keeps the monitoring and results of an unknown experiment at 404", async () => {
    for (const path of ["completeness", "monitor", "timeline"])
      expect((await admin.get(`/api/v1/admin/experiments/${crypto.randomUUID()}/${path}`)).status).toBe(404);
  });
});
