import type { Experiment, Group } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

const arm = (extra: Record<string, unknown> = {}) => ({
  name: "Arm",
  algorithm_config: { feed: "popularity", watch: "similarity" },
  ui_config: { feed: "grid-desktop", watch: "list-mobile" },
  ...extra,
});

describe.each(BACKENDS)("experiments and groups (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("creates an experiment in draft and lists, reads and updates it", async () => {
    const created = await admin.post<Experiment>("/api/v1/admin/experiments", {
      name: "Layouts",
      description: "A test",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Layouts", description: "A test", status: "draft" });
    expect(Date.parse(created.body.created_at)).not.toBeNaN();
    const id = created.body.id;
    expect((await admin.get<Experiment[]>("/api/v1/admin/experiments")).body.map((e) => e.id)).toContain(id);
    const patched = await admin.patch<Experiment>(`/api/v1/admin/experiments/${id}`, {
      status: "paused",
      name: "Layouts 2",
    });
    expect(patched.body).toMatchObject({ status: "paused", name: "Layouts 2" });
    expect((await admin.get<Experiment>(`/api/v1/admin/experiments/${id}`)).body.status).toBe("paused");
  });

  it("answers 422 naming status when the status is not one of the four", async () => {
    const { body } = await admin.post<Experiment>("/api/v1/admin/experiments", { name: "S" });
    const r = await admin.patch(`/api/v1/admin/experiments/${body.id}`, { status: "archived" });
    expect(r.status).toBe(422);
    expect((r.body as { error: { details: { field: string } } }).error.details.field).toBe("status");
  });

  it("removes groups, pool links and participants with the experiment, and keeps the videos", async () => {
    const { experiment, groups, videos } = await createStudy(admin, { status: "running" });
    await app.client().post("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "gone" });
    expect((await admin.del(`/api/v1/admin/experiments/${experiment.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/admin/experiments/${experiment.id}`)).status).toBe(404);
    expect((await admin.get(`/api/v1/admin/groups/${groups[0]?.id}`)).status).toBe(404);
    const db = app.runtime.db;
    expect(await db("experiment_videos").where({ experiment_id: experiment.id })).toEqual([]);
    expect(await db("users").where({ experiment_id: experiment.id })).toEqual([]);
    expect((await admin.get(`/api/v1/admin/videos/${videos[0]?.id}`)).status).toBe(200);
    expect((await admin.del(`/api/v1/admin/experiments/${experiment.id}`)).status).toBe(404);
  });

  it("creates a group with weight 1 by default and both configuration axes", async () => {
    const { body: exp } = await admin.post<Experiment>("/api/v1/admin/experiments", { name: "G" });
    const r = await admin.post<Group>(
      `/api/v1/admin/experiments/${exp.id}/groups`,
      arm({ recommender_params: { popularity: { window_days: 7 } } }),
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      experiment_id: exp.id,
      weight: 1,
      algorithm_config: { feed: "popularity", watch: "similarity" },
      ui_config: { feed: "grid-desktop", watch: "list-mobile" },
      recommender_params: { popularity: { window_days: 7 } },
    });
    const list = await admin.get<Group[]>(`/api/v1/admin/experiments/${exp.id}/groups`);
    expect(list.body.map((g) => g.id)).toEqual([r.body.id]);
    const patched = await admin.patch<Group>(`/api/v1/admin/groups/${r.body.id}`, {
      algorithm_config: { feed: "random", watch: "recency" },
    });
    expect(patched.body.algorithm_config).toEqual({ feed: "random", watch: "recency" });
    expect(patched.body.ui_config).toEqual({ feed: "grid-desktop", watch: "list-mobile" });
    expect((await admin.del(`/api/v1/admin/groups/${r.body.id}`)).status).toBe(204);
  });

  it("answers 422 unknown_recommender, unknown_ui with the field, and stores no group", async () => {
    const { body: exp } = await admin.post<Experiment>("/api/v1/admin/experiments", { name: "Bad groups" });
    const badRec = await admin.post(
      `/api/v1/admin/experiments/${exp.id}/groups`,
      arm({ algorithm_config: { feed: "recency", watch: "collab" } }),
    );
    expect(badRec.status).toBe(422);
    expect(codeOf(badRec)).toBe("unknown_recommender");
    expect((badRec.body as { error: { details: { field: string } } }).error.details.field).toBe(
      "algorithm_config.watch",
    );
    const badUi = await admin.post(
      `/api/v1/admin/experiments/${exp.id}/groups`,
      arm({ ui_config: { feed: "fancy", watch: "none" } }),
    );
    expect(codeOf(badUi)).toBe("unknown_ui");
    const badParams = await admin.post(
      `/api/v1/admin/experiments/${exp.id}/groups`,
      arm({ recommender_params: { nope: {} } }),
    );
    expect(codeOf(badParams)).toBe("unknown_recommender");
    const badWeight = await admin.post(`/api/v1/admin/experiments/${exp.id}/groups`, arm({ weight: 0 }));
    expect(codeOf(badWeight)).toBe("validation_failed");
    expect((await admin.get<Group[]>(`/api/v1/admin/experiments/${exp.id}/groups`)).body).toEqual([]);
    expect(
      (await admin.post(`/api/v1/admin/experiments/00000000-0000-4000-8000-000000000000/groups`, arm()))
        .status,
    ).toBe(404);
  });

  it("answers 409 group_has_participants when a group with participants is deleted", async () => {
    const { experiment, groups } = await createStudy(admin, { weights: [1], status: "running" });
    await app.client().post("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "stays" });
    const r = await admin.del(`/api/v1/admin/groups/${groups[0]?.id}`);
    expect(r.status).toBe(409);
    expect(codeOf(r)).toBe("group_has_participants");
    expect((r.body as { error: { message: string } }).error.message).toBe(
      "1 participant is assigned to this arm; it cannot be deleted.",
    );
  });

  it("answers 404 not_found naming an arm, with resource group, for an unknown group id", async () => {
    const r = await admin.get("/api/v1/admin/groups/00000000-0000-4000-8000-000000000000");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({
      error: { code: "not_found", message: "No arm with that id or key.", details: { resource: "group" } },
    });
  });
});
