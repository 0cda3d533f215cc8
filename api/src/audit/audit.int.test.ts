import type { Group } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey, joinParticipant } from "../../../test/harness/surveys.ts";

interface Entry {
  cursor: number;
  at: string;
  admin: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

/** api.md, Participant rights and access: `GET /api/v1/admin/audit`. */
describe.each(BACKENDS)("audit log (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const audit = async (query = "") => (await admin.get<Entry[]>(`/api/v1/admin/audit${query}`)).body;

  it("records sign-ins, changes and exports, newest first, with field names and never the data", async () => {
    expect(
      (await app.client().post("/api/v1/auth/login", { username: ADMIN.username, password: "wrong-one" }))
        .status,
    ).toBe(401);
    const { experiment } = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const p = await joinParticipant(app, experiment.id, "audited");
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      consent_text: "Secret consent wording",
      status: "paused",
    });
    await admin.patch(`/api/v1/admin/participants/${p.user.user_id}`, {
      excluded: true,
      reason: "Private reason",
    });
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`);
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants`); // a read, not recorded
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/events?format=csv`);
    await admin.post("/api/v1/admin/admins", { username: "erin", password: "erin-password" });

    const entries = await audit();
    const actions = entries.map((e) => e.action);
    expect(actions.slice(0, 5)).toEqual([
      "admin.add",
      "export.events",
      "export.participants",
      "participant.exclusion",
      "experiment.update",
    ]);
    expect(actions).toContain("auth.login");
    expect(actions).toContain("auth.login_failed");
    expect(actions).toContain("experiment.create");
    expect(actions.filter((a) => a === "arm.create")).toHaveLength(1);
    const byAction = (a: string) => entries.find((e) => e.action === a);
    expect(byAction("experiment.update")).toMatchObject({
      admin: ADMIN.username,
      target: experiment.id,
      details: { fields: ["consent_text", "status"], status: "paused" },
    });
    expect(byAction("export.events")?.details).toMatchObject({ format: "csv" });
    expect(byAction("admin.add")).toMatchObject({
      target: "erin",
      details: { fields: ["username", "role"], role: "researcher" },
    });
    expect(byAction("auth.login_failed")).toMatchObject({ admin: null, target: ADMIN.username });
    const text = JSON.stringify(entries);
    for (const secret of ["Secret consent wording", "Private reason", "erin-password", "wrong-one"])
      expect(text).not.toContain(secret);

    // Paging back from a cursor gives the older entries.
    const older = await audit(`?limit=2&before=${entries[1]?.cursor}`);
    expect(older.map((e) => e.cursor)).toEqual(entries.slice(2, 4).map((e) => e.cursor));
  });

  /** The newest entry of `action` whose details name `id`. */
  const entryAbout = async (action: string, id: string) =>
    (await audit()).find(
      (e) =>
        e.action === action &&
        ((e.details.about as { id: string }[] | undefined) ?? []).some((s) => s.id === id),
    );

  /** A layout of the feed page named `name`. */
  const createLayout = async (name: string) => {
    const r = await admin.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name,
      page: "feed",
      template_type: "code",
      source: `import { FeedSurface } from "@feedlab/surfaces";\nexport default function Page() {\n  return <FeedSurface><p>${name}</p></FeedSurface>;\n}\n`,
    });
    expect(r.status).toBe(201);
    return r.body.id;
  };

  it("names each change's arm, experiment, survey, layout and recommender as they were called then", async () => {
    const { experiment, groups } = await createStudy(admin, {
      name: "Pilot",
      weights: [1, 1],
      videoCount: 1,
    });
    const arm = groups[0]?.id as string;
    const survey = await createSurvey(admin, experiment.id, { kind: "pre", name: "Mood check" });
    const layout = await createLayout("Tall cards");
    expect((await admin.patch(`/api/v1/admin/groups/${arm}`, { name: "Control" })).status).toBe(200);
    expect((await admin.post(`/api/v1/admin/surveys/${survey.id}/activate`, {})).status).toBe(200);
    expect(
      (await admin.patch(`/api/v1/admin/ui-templates/${layout}`, { name: "Tall cards v2" })).status,
    ).toBe(200);
    expect((await admin.patch("/api/v1/admin/recommenders/recency", { label: "Newest first" })).status).toBe(
      200,
    );
    expect((await admin.get(`/api/v1/admin/experiments/${experiment.id}/events?format=csv`)).status).toBe(
      200,
    );
    // Renamed afterwards: the entries keep the names of the time.
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { name: "Pilot (renamed)" });

    const pilot = { kind: "experiment", id: experiment.id, name: "Pilot" };
    expect((await entryAbout("arm.create", arm))?.details.about).toEqual([
      pilot,
      { kind: "arm", id: arm, name: "Arm 1" },
    ]);
    expect(await entryAbout("arm.update", arm)).toMatchObject({
      target: arm,
      details: { about: [pilot, { kind: "arm", id: arm, name: "Control" }] },
    });
    expect((await entryAbout("survey.create", survey.id))?.details.about).toEqual([
      pilot,
      { kind: "survey", id: survey.id, name: "Mood check" },
    ]);
    expect((await entryAbout("layout.update", layout))?.details.about).toEqual([
      { kind: "layout", id: layout, name: "Tall cards v2" },
    ]);
    expect((await entryAbout("recommender.update", "recency"))?.details.about).toEqual([
      { kind: "recommender", id: "recency", name: "Newest first" },
    ]);
    expect((await entryAbout("export.events", experiment.id))?.details.about).toEqual([pilot]);
    expect((await entryAbout("experiment.update", experiment.id))?.details.about).toEqual([
      { ...pilot, name: "Pilot (renamed)" },
    ]);
    await admin.patch("/api/v1/admin/recommenders/recency", { label: "Recency" });
  });

  it("records only the fields an arm's update changed, before and after in words", async () => {
    const { groups } = await createStudy(admin, { name: "Words", weights: [1], videoCount: 1 });
    const arm = groups[0] as Group;
    const layout = await createLayout("Big thumbnails");
    // The console sends every field; two of them differ.
    const r = await admin.patch(`/api/v1/admin/groups/${arm.id}`, {
      name: arm.name,
      weight: arm.weight,
      algorithm_config: { feed: "popularity", watch: arm.algorithm_config.watch },
      ui_config: { feed: layout, watch: arm.ui_config.watch },
      recommender_params: arm.recommender_params,
    });
    expect(r.status).toBe(200);
    const entry = await entryAbout("arm.update", arm.id);
    expect(entry?.details.fields).toEqual(["algorithm_config.feed", "ui_config.feed"]);
    expect(entry?.details.changes).toEqual([
      { field: "algorithm_config.feed", from: "Recency", to: "Popularity" },
      { field: "ui_config.feed", from: "grid-desktop", to: "Big thumbnails" },
    ]);

    // Weight and parameters, in words; a save that changes nothing lists nothing.
    await admin.patch(`/api/v1/admin/groups/${arm.id}`, {
      weight: 2,
      recommender_params: { popularity: { window_days: 7 } },
    });
    expect((await entryAbout("arm.update", arm.id))?.details.changes).toEqual([
      { field: "weight", from: "1", to: "2" },
      { field: "recommender_params", from: "none", to: "popularity: window_days = 7" },
    ]);
    await admin.patch(`/api/v1/admin/groups/${arm.id}`, { weight: 2 });
    expect((await entryAbout("arm.update", arm.id))?.details).toMatchObject({ fields: [], changes: [] });
  });

  it("records only the fields an experiment's update changed, naming a status only when it changed", async () => {
    const { experiment } = await createStudy(admin, { name: "Settings", weights: [1], videoCount: 1 });
    // The console's settings send the name, the description and the status together.
    const save = (status: string) =>
      admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        name: experiment.name,
        description: experiment.description,
        status,
      });
    expect((await save("running")).status).toBe(200);
    expect((await entryAbout("experiment.update", experiment.id))?.details).toMatchObject({
      fields: ["status"],
      status: "running",
    });
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      name: "Settings, renamed",
      status: "running",
    });
    const renamed = await entryAbout("experiment.update", experiment.id);
    expect(renamed?.details.fields).toEqual(["name"]);
    expect(renamed?.details).not.toHaveProperty("status");
  });

  it("names a dry run's experiment, as other entries name theirs", async () => {
    const { experiment } = await createStudy(admin, { name: "Rehearsal", weights: [1], videoCount: 2 });
    const started = await admin.post(`/api/v1/admin/experiments/${experiment.id}/dry-runs`, {
      participants_per_arm: 1,
      browser: false,
    });
    expect(started.status).toBe(202);
    expect((await admin.del(`/api/v1/admin/experiments/${experiment.id}/dry-runs`)).status).toBe(204);
    const rehearsal = [{ kind: "experiment", id: experiment.id, name: "Rehearsal" }];
    expect((await entryAbout("dry_run.start", experiment.id))?.details.about).toEqual(rehearsal);
    expect((await entryAbout("dry_run.erase", experiment.id))?.details.about).toEqual(rehearsal);
  });

  it("keeps the names of deleted arms, surveys and experiments, and never a participant's login", async () => {
    const { experiment, groups } = await createStudy(admin, {
      name: "Gone soon",
      status: "running",
      weights: [1, 0.001],
      videoCount: 1,
    });
    const survey = await createSurvey(admin, experiment.id, { kind: "post", name: "Exit survey" });
    const p = await joinParticipant(app, experiment.id, "login-kept-nowhere");
    const empty = groups.find((g) => g.id !== p.user.group_id) as Group;
    expect((await admin.del(`/api/v1/admin/groups/${empty.id}`)).status).toBe(204);
    expect((await admin.del(`/api/v1/admin/surveys/${survey.id}`)).status).toBe(204);
    expect(
      (await admin.patch(`/api/v1/admin/participants/${p.user.user_id}`, { excluded: true, reason: "test" }))
        .status,
    ).toBe(204);
    const gone = { kind: "experiment", id: experiment.id, name: "Gone soon" };
    expect((await entryAbout("arm.delete", empty.id))?.details.about).toEqual([
      gone,
      { kind: "arm", id: empty.id, name: empty.name },
    ]);
    expect((await entryAbout("survey.delete", survey.id))?.details.about).toEqual([
      gone,
      { kind: "survey", id: survey.id, name: "Exit survey" },
    ]);
    // While the participant exists, the log names them by their login id (looked up, not stored).
    expect((await entryAbout("participant.exclusion", p.user.user_id))?.details.about).toEqual([
      gone,
      { kind: "participant", id: p.user.user_id, name: "login-kept-nowhere" },
    ]);
    const stored = await app.runtime.db("audit_log").select("details");
    expect(JSON.stringify(stored)).not.toContain("login-kept-nowhere");

    expect((await admin.del(`/api/v1/admin/participants/${p.user.user_id}`)).status).toBe(204);
    expect((await entryAbout("participant.erase", p.user.user_id))?.details.about).toEqual([
      gone,
      { kind: "participant", id: p.user.user_id },
    ]);
    expect((await admin.del(`/api/v1/admin/experiments/${experiment.id}`)).status).toBe(204);
    expect((await entryAbout("experiment.delete", experiment.id))?.details.about).toEqual([gone]);
    expect(JSON.stringify(await audit())).not.toContain("login-kept-nowhere");
  });

  it("is for admins only", async () => {
    const { experiment } = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const p = await joinParticipant(app, experiment.id, "curious");
    expect((await p.client.get("/api/v1/admin/audit")).status).toBe(403);
    expect((await app.client().get("/api/v1/admin/audit")).status).toBe(401);
  });
});
