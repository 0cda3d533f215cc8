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
