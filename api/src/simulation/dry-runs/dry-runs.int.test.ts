import type { DryRun, Group } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../../test/harness/app.ts";
import { createStudy, type StudyFixture } from "../../../../test/harness/fixtures.ts";
import { closedPortUrl } from "../../../../test/harness/recommender-server.ts";
import { createSurvey } from "../../../../test/harness/surveys.ts";

/** Polls a dry run until it is done or failed. */
async function finished(admin: Client, experimentId: string, runId: string): Promise<DryRun> {
  const until = Date.now() + 120_000;
  for (;;) {
    const r = await admin.get<DryRun>(`/api/v1/admin/experiments/${experimentId}/dry-runs/${runId}`);
    expect(r.status).toBe(200);
    if (r.body.status === "done" || r.body.status === "failed") return r.body;
    if (Date.now() > until) throw new Error(`dry run still ${r.body.status} after 2 minutes`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

const arm = (run: DryRun, name: string) => {
  const found = run.arms.find((a) => a.name === name);
  if (!found) throw new Error(`no arm ${name} in ${JSON.stringify(run.arms.map((a) => a.name))}`);
  return found;
};

// The embedded default; the dry run goes through the same routes on every backend.
describe.each(BACKENDS)("dry runs over HTTP (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  let run: DryRun;
  let statsBefore: unknown;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { weights: [1, 1], videoCount: 12, name: "Dry-run study" });
    const [healthy, broken] = study.groups as [Group, Group];
    await admin.patch(`/api/v1/admin/groups/${healthy.id}`, {
      name: "Healthy",
      algorithm_config: { feed: "random", watch: "similarity" },
    });
    // An external recommender that refuses every connection serves the other arm's feed.
    const key = "ext-refusing";
    const reg = await admin.post("/api/v1/admin/recommenders", {
      key,
      kind: "external_http",
      label: "Refusing",
      supports_feed: true,
      supports_watch: true,
      config: { url: await closedPortUrl() },
    });
    expect(reg.status).toBe(201);
    await admin.patch(`/api/v1/admin/groups/${broken.id}`, {
      name: "Refusing",
      algorithm_config: { feed: key, watch: "similarity" },
    });
    await createSurvey(admin, study.experiment.id, { kind: "pre", name: "Before", is_active: true });
    await createSurvey(admin, study.experiment.id, {
      kind: "inter_session",
      name: "Between",
      is_active: true,
    });
    await admin.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      completion: {
        after_sessions: 3,
        code: "C0DE",
        redirect_url: "https://panel.example/done?u={login_id}&c={code}",
      },
    });
    statsBefore = (await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/stats`)).body;

    const started = await admin.post<DryRun>(`/api/v1/admin/experiments/${study.experiment.id}/dry-runs`, {
      participants_per_arm: 3,
      browser: false,
      seed: 7,
    });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe("queued");
    run = await finished(admin, study.experiment.id, started.body.id);
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("runs every participant of every arm of a draft experiment to the end", () => {
    expect(run.status).toBe("done");
    // Progress counts visits: three sessions for each of the six.
    expect(run.progress).toEqual({ done: 18, total: 18 });
    expect(run.arms.map((a) => a.participants)).toEqual([3, 3]);
  });

  it("reports the healthy arm green: finished, surveys in order, a filled redirect, every type its journey produces", () => {
    const healthy = arm(run, "Healthy");
    expect(healthy.problems, JSON.stringify(healthy.problems)).toEqual([]);
    expect(healthy.missing_event_types).toEqual([]);
    expect(healthy.finished + healthy.declined).toBe(3);
    // The third visit counts once its events arrive, so it begins as the second did: with the
    // inter-session survey about the visit before.
    expect(healthy.surveys).toEqual([
      { name: "Before", kind: "pre" },
      { name: "Between", kind: "inter_session" },
      { name: "Between", kind: "inter_session" },
    ]);
    expect(healthy.completion_redirect).toMatch(/^https:\/\/panel\.example\/done\?u=sim-[^&]+&c=C0DE$/);
    expect(healthy.completion_not_tested).toBeNull();
    for (const t of ["SESSION_START", "PAGE_LOAD", "HOME_FEED", "IMPRESSION", "SESSION_END"])
      expect(healthy.event_types).toContain(t);
    expect(healthy.ctr.value).not.toBeNull();
    expect(healthy.first_card_ms?.p50).toBeGreaterThan(0);
  });

  it("names the broken arm and why: its feed was empty", () => {
    const broken = arm(run, "Refusing");
    expect(run.ok).toBe(false);
    const kinds = new Set(broken.problems.map((p) => p.kind));
    expect(kinds).toContain("empty_feed");
    const empty = broken.problems.find((p) => p.kind === "empty_feed");
    expect(empty?.message).toContain("ext-refusing");
    expect(empty?.participant).toMatch(/^sim-/);
  });

  it("keeps the run apart: /stats is unchanged, the participants are flagged, and one action erases them", async () => {
    const id = study.experiment.id;
    expect((await admin.get(`/api/v1/admin/experiments/${id}/stats`)).body).toMatchObject({
      groups: (statsBefore as { groups: unknown[] }).groups,
    });
    const listed = await admin.get<{ items: { login_id: string; simulated: boolean }[] }>(
      `/api/v1/admin/experiments/${id}/participants`,
    );
    expect(listed.body.items.length).toBe(6);
    expect(listed.body.items.every((p) => p.simulated && p.login_id.startsWith("sim-"))).toBe(true);

    // The arms hold only simulated participants: deleting one says so, and how to free it.
    const healthy = (await admin.get<Group[]>(`/api/v1/admin/experiments/${id}/groups`)).body.find(
      (g) => g.name === "Healthy",
    );
    expect(healthy).toMatchObject({ participant_count: 3, simulated_participant_count: 3 });
    const refused = await admin.del(`/api/v1/admin/groups/${healthy?.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: {
        code: "group_has_participants",
        message:
          "3 participants are assigned to this arm, all simulated by a dry run: erase the dry runs' participants to free it.",
        details: { participants: 3, simulated: 3 },
      },
    });

    expect((await admin.del(`/api/v1/admin/experiments/${id}/dry-runs`)).status).toBe(204);
    const after = await admin.get<{ items: unknown[]; total: number }>(
      `/api/v1/admin/experiments/${id}/participants`,
    );
    expect(after.body).toMatchObject({ items: [], total: 0 });
    const db = app.runtime.db;
    for (const table of ["users", "sessions", "events", "evaluation_counts", "survey_responses"])
      expect(Number((await db(table).count<{ n: string }[]>("* as n"))[0]?.n), table).toBe(0);
    // The report stays.
    const kept = await admin.get<DryRun[]>(`/api/v1/admin/experiments/${id}/dry-runs`);
    expect(kept.body.map((r) => r.id)).toEqual([run.id]);
    expect(kept.body[0]?.arms.length).toBe(2);
  });

  it("reports the completion as not tested, with why, when its rule asks for minutes the run does not wait for", async () => {
    const s = await createStudy(admin, { weights: [1], videoCount: 4, name: "Minutes study" });
    await admin.patch(`/api/v1/admin/experiments/${s.experiment.id}`, {
      completion: { after_feed_minutes: 1, redirect_url: "https://panel.example/done?u={login_id}" },
    });
    const started = await admin.post<DryRun>(`/api/v1/admin/experiments/${s.experiment.id}/dry-runs`, {
      participants_per_arm: 3,
      browser: false,
      seed: 7,
    });
    const done = await finished(admin, s.experiment.id, started.body.id);
    const [only] = done.arms;
    expect(only?.finished).toBe(0);
    expect(only?.problems).toEqual([]);
    expect(only?.completion_redirect).toBeNull();
    expect(only?.completion_not_tested).toBe(
      "The completion rule asks for 1 minute on the pages, which a dry run does not wait for.",
    );
    const unfinished = (only?.participants ?? 0) - (only?.declined ?? 0);
    expect(done.warnings[0]).toBe(
      `The completion rule asks for 1 minute on the pages, which a dry run does not wait for: ${unfinished} simulated ${unfinished === 1 ? "participant" : "participants"} did not reach the completion within the run's budget, so the completion and its return link were not tested. The rest of the journey was checked.`,
    );
  }, 120_000);

  it("follows a schedule of three sessions, each begun in its compressed window, to the completion", async () => {
    const s = await createStudy(admin, { weights: [1], videoCount: 8, name: "Longitudinal study" });
    // Windows of 0.04 h (144 s) are compressed to 10 s for simulated participants: each later session
    // opens 2.5 s and closes 12.5 s after the previous one began. Reminders by e-mail, without a mail
    // server, would stop the start (readiness), not a dry run of the draft.
    const window = { opens_after_hours: 0.01, closes_after_hours: 0.05 };
    const patched = await admin.patch(`/api/v1/admin/experiments/${s.experiment.id}`, {
      completion: { after_sessions: 3, code: "L0NG" },
      schedule: [
        { session: 2, ...window },
        { session: 3, ...window },
      ],
      reminders: { email: true },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const started = await admin.post<DryRun>(`/api/v1/admin/experiments/${s.experiment.id}/dry-runs`, {
      participants_per_arm: 3,
      browser: false,
      seed: 11,
    });
    expect(started.status).toBe(202);
    const done = await finished(admin, s.experiment.id, started.body.id);
    expect(done.status, done.error ?? "").toBe("done");
    expect(done.warnings).toEqual([]);
    expect(done.progress).toEqual({ done: 9, total: 9 });
    const [only] = done.arms;
    expect(only?.problems, JSON.stringify(only?.problems)).toEqual([]);
    // The study has no consent text: nobody declines, everyone finishes.
    expect(only).toMatchObject({ participants: 3, finished: 3, completion_not_tested: null });
    // Nobody began a session before its window: two waits of at least 2.5 s + the 1 s margin each.
    const tookMs = Date.parse(done.finished_at ?? "") - Date.parse(done.started_at ?? "");
    expect(tookMs).toBeGreaterThanOrEqual(7000);
    // Three sessions each, none begun early and left uncounted.
    const listed = await admin.get<{ items: { status: string; sessions: number }[] }>(
      `/api/v1/admin/experiments/${s.experiment.id}/participants`,
    );
    expect(listed.body.items.map((p) => [p.status, p.sessions])).toEqual([
      ["finished", 3],
      ["finished", 3],
      ["finished", 3],
    ]);
  }, 90_000);

  it("reports a schedule that cannot fit in the run's budget, naming the session, before waiting for it", async () => {
    const s = await createStudy(admin, { weights: [1], videoCount: 4, name: "Years-long study" });
    // 24 windows opening 1000 hours apart: 1000 s each even compressed, past the 10-minute budget.
    const schedule = Array.from({ length: 24 }, (_, i) => ({
      session: i + 2,
      opens_after_hours: 1000,
      closes_after_hours: 2000,
    }));
    const patched = await admin.patch(`/api/v1/admin/experiments/${s.experiment.id}`, {
      completion: { after_sessions: 25, code: "Y3AR" },
      schedule,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const started = await admin.post<DryRun>(`/api/v1/admin/experiments/${s.experiment.id}/dry-runs`, {
      participants_per_arm: 2,
      browser: false,
      seed: 5,
    });
    const done = await finished(admin, s.experiment.id, started.body.id);
    expect(done.status, done.error ?? "").toBe("done");
    expect(done.warnings).toEqual([
      "The schedule cannot be followed within the run's time budget (10 minutes): even with time compressed (an hour of the schedule lasts a second, each window at least 10 s long), session 2's window opens 16.7 minutes after the first session begins. The simulated participants stop before session 2, so it, the sessions after it and the completion were not tested; the sessions before it were checked. To try every session, dry-run a copy of the study with a shorter schedule (hours can be as short as 0.01).",
    ]);
    const [only] = done.arms;
    expect(only?.problems).toEqual([]);
    expect(only?.finished).toBe(0);
    expect(only?.completion_not_tested).toBe(
      "Session 2's window opens after the run's time budget (10 minutes), even with the schedule's time compressed, so no simulated participant could reach the completion.",
    );
    // The first session was made and checked; nobody waited for the second.
    expect(only?.event_types).toContain("SESSION_START");
    const tookMs = Date.parse(done.finished_at ?? "") - Date.parse(done.started_at ?? "");
    expect(tookMs).toBeLessThan(60_000);
  }, 90_000);

  it("refuses a completed experiment (409) and a browser run without Chromium (422 no_browser)", async () => {
    const done = await createStudy(admin, { weights: [1], videoCount: 2, status: "running" });
    await admin.patch(`/api/v1/admin/experiments/${done.experiment.id}`, { status: "completed" });
    const refused = await admin.post(`/api/v1/admin/experiments/${done.experiment.id}/dry-runs`, {
      browser: false,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: "experiment_not_open" } });

    const other = await startTestApp(backend, { env: { FEEDLAB_CHROMIUM: "/nonexistent/chromium" } });
    try {
      const a = await other.admin();
      const s = await createStudy(a, { weights: [1], videoCount: 2 });
      const r = await a.post(`/api/v1/admin/experiments/${s.experiment.id}/dry-runs`, {});
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({
        error: { code: "no_browser", details: { install: "apt-get install -y chromium" } },
      });
    } finally {
      await other.stop();
    }
  });
});
