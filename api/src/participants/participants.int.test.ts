import type { JoinResult, Me, Participant, ParticipantSummary } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { joinSimulated } from "./simulated.fixture.ts";

describe.each(BACKENDS)("participants (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("creates the participant on first join and resumes the same user and group afterwards", async () => {
    const { experiment } = await createStudy(admin, { status: "running" });
    const c = app.client();
    const first = await c.post<JoinResult>("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "P-001",
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ login_id: "P-001", experiment_id: experiment.id });
    expect(first.headers.getSetCookie().find((s) => s.startsWith("feedlab_participant="))).toMatch(
      /httponly/i,
    );
    const again = await app
      .client()
      .post<JoinResult>("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "P-001" });
    expect(again.body).toEqual(first.body);
    const me = await c.get<Me>("/api/v1/me");
    expect(me.body).toMatchObject({
      user_id: first.body.user_id,
      experiment_status: "running",
      group_id: first.body.group_id,
      algorithm_config: { feed: "recency", watch: "recency" },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
  });

  it("lets newcomers join only a running study; a returning participant back into a completed one, and tells them a paused one is paused", async () => {
    const join = (experimentId: string, login: string) =>
      app.client().post("/api/v1/participants/join", { experiment_id: experimentId, login_id: login });
    expect((await join("00000000-0000-4000-8000-000000000000", "x")).status).toBe(404);
    for (const status of ["draft", "paused", "completed"]) {
      const { experiment } = await createStudy(admin, { status });
      const r = await join(experiment.id, "newcomer");
      expect(r.status).toBe(403);
      expect(codeOf(r)).toBe("experiment_not_open");
    }
    const { experiment } = await createStudy(admin, { status: "running" });
    const first = await join(experiment.id, "returning");
    expect(first.status).toBe(200);
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "paused" });
    const paused = await join(experiment.id, "returning");
    expect([paused.status, codeOf(paused)]).toEqual([403, "experiment_paused"]);
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "completed" });
    const back = await join(experiment.id, "returning");
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ user_id: (first.body as { user_id: string }).user_id });
    expect(codeOf(await join(experiment.id, "latecomer"))).toBe("experiment_not_open");
  });

  it("balances 40 concurrent joins by group weight (1:3 gives 10 and 30) with one user per login id", async () => {
    const { experiment, groups } = await createStudy(admin, { weights: [1, 3], status: "running" });
    const joins = Array.from({ length: 40 }, (_, i) =>
      app
        .client()
        .post<JoinResult>("/api/v1/participants/join", { experiment_id: experiment.id, login_id: `c-${i}` }),
    );
    // The same login id joining twice at once must still give one user.
    joins.push(
      app
        .client()
        .post<JoinResult>("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "c-0" }),
    );
    const results = await Promise.all(joins);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const list = (await admin.get<Participant[]>(`/api/v1/admin/experiments/${experiment.id}/participants`))
      .body;
    expect(list).toHaveLength(40);
    const perGroup = (id: string | undefined) => list.filter((p) => p.group_id === id).length;
    expect([perGroup(groups[0]?.id), perGroup(groups[1]?.id)]).toEqual([10, 30]);
  });

  it("registers participants from the admin, into a chosen group or balanced, and refuses duplicates", async () => {
    const { experiment, groups } = await createStudy(admin, { weights: [1, 1] });
    const chosen = await admin.post<Participant>(`/api/v1/admin/experiments/${experiment.id}/participants`, {
      login_id: "A1",
      group_id: groups[1]?.id,
    });
    expect(chosen.status).toBe(201);
    expect(chosen.body.group_id).toBe(groups[1]?.id);
    const balanced = await admin.post<Participant>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
      { login_id: "A2" },
    );
    expect(balanced.body.group_id).toBe(groups[0]?.id);
    const dup = await admin.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
      login_id: "A1",
    });
    expect(dup.status).toBe(409);
    expect(codeOf(dup)).toBe("duplicate_login_id");
    const other = await createStudy(admin, { weights: [1] });
    const foreign = await admin.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
      login_id: "A3",
      group_id: other.groups[0]?.id,
    });
    expect(foreign.status).toBe(422);
    expect(codeOf(foreign)).toBe("unknown_group");
  });

  it("refuses to start a study that is not ready, naming each problem (422 experiment_not_ready)", async () => {
    const { experiment } = await createStudy(admin, { weights: [], videoCount: 0 });
    const r = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "running" });
    expect([r.status, codeOf(r)]).toEqual([422, "experiment_not_ready"]);
    const problems = (r.body as { error: { details: { problems: { problem: string; message: string }[] } } })
      .error.details.problems;
    expect(problems.map((p) => p.problem)).toEqual(["no_groups", "empty_pool"]);
    // The codes keep the API's word; the messages, which the console shows, say "arm".
    expect(problems[0]?.message).toBe("Add at least one arm: participants are assigned to arms.");
    // Nothing changed.
    expect(
      (await admin.get<{ status: string }>(`/api/v1/admin/experiments/${experiment.id}`)).body.status,
    ).toBe("draft");
    // A group whose recommender was removed.
    const ready = await createStudy(admin, { weights: [1] });
    await admin.post("/api/v1/admin/recommenders", {
      key: "gone-soon",
      kind: "external_http",
      label: "Gone soon",
      config: { url: "http://127.0.0.1:9/r" },
    });
    await admin.patch(`/api/v1/admin/groups/${ready.groups[0]?.id}`, {
      algorithm_config: { feed: "gone-soon", watch: "recency" },
    });
    await admin.del("/api/v1/admin/recommenders/gone-soon");
    const stale = await admin.patch(`/api/v1/admin/experiments/${ready.experiment.id}`, {
      status: "running",
    });
    expect(codeOf(stale)).toBe("experiment_not_ready");
    expect(
      (stale.body as { error: { details: { problems: { problem: string; key: string }[] } } }).error.details
        .problems,
    ).toEqual([
      expect.objectContaining({
        problem: "unknown_recommender",
        key: "gone-soon",
        page: "feed",
        message: "Arm “Arm 1”: the feed page's recommender “gone-soon” no longer exists. Choose another.",
      }),
    ]);
  });

  it("balances real participants among real ones only and simulated ones among simulated ones only", async () => {
    const createSimulated = (experimentId: string, login: string) =>
      app.runtime.services.participants.createSimulated(experimentId, login);
    const join = (experimentId: string, login: string) =>
      app
        .client()
        .post<JoinResult>("/api/v1/participants/join", { experiment_id: experimentId, login_id: login });
    // Given three simulated participants (two in A, one in B), real joins start from an empty study.
    const dry = await createStudy(admin, { weights: [1, 1], status: "running" });
    const [a, b] = dry.groups;
    const sims = [];
    for (const login of ["sim-0", "sim-1", "sim-2"])
      sims.push(await createSimulated(dry.experiment.id, login));
    expect(sims.map((p) => p.group_id)).toEqual([a?.id, b?.id, a?.id]);
    expect((await join(dry.experiment.id, "real-0")).body.group_id).toBe(a?.id);
    expect((await join(dry.experiment.id, "real-1")).body.group_id).toBe(b?.id);
    // Given two real participants put in A by hand, simulated ones start from an empty study.
    const hand = await createStudy(admin, { weights: [1, 1], status: "running" });
    for (const login of ["h-0", "h-1"])
      await admin.post(`/api/v1/admin/experiments/${hand.experiment.id}/participants`, {
        login_id: login,
        group_id: hand.groups[0]?.id,
      });
    expect((await createSimulated(hand.experiment.id, "sim-0")).group_id).toBe(hand.groups[0]?.id);
  });

  it("makes simulated participants on a draft or running study only, refusing others with 409 experiment_not_open", async () => {
    const createSimulated = (experimentId: string, login: string, groupId?: string) =>
      app.runtime.services.participants.createSimulated(experimentId, login, groupId);
    for (const status of ["draft", "running"]) {
      const { experiment } = await createStudy(admin, { status });
      expect((await createSimulated(experiment.id, "sim-ok")).login_id).toBe("sim-ok");
      // The same login id again is a duplicate, as for an admin's registration.
      await expect(createSimulated(experiment.id, "sim-ok")).rejects.toMatchObject({
        status: 409,
        code: "duplicate_login_id",
      });
    }
    for (const status of ["paused", "completed"]) {
      const { experiment } = await createStudy(admin, { status });
      await expect(createSimulated(experiment.id, "sim-late")).rejects.toMatchObject({
        status: 409,
        code: "experiment_not_open",
      });
    }
    const { experiment, groups } = await createStudy(admin, { status: "running", weights: [1, 1] });
    // The runner may put one in a given arm: the second, though the first is emptier.
    expect((await createSimulated(experiment.id, "sim-in-b", groups[1]?.id)).group_id).toBe(groups[1]?.id);
    const other = await createStudy(admin, { weights: [1] });
    await expect(createSimulated(experiment.id, "sim-foreign", other.groups[0]?.id)).rejects.toMatchObject({
      status: 422,
      code: "unknown_group",
    });
    // A login id without the prefix is the caller's bug, not a participant's request.
    await expect(createSimulated(experiment.id, "P-9")).rejects.toThrow(/login id starts "sim-"/);
    await expect(createSimulated(crypto.randomUUID(), "sim-x")).rejects.toMatchObject({ status: 404 });
  });

  it("marks simulated participants in the list and /me by the flag, never by a login id starting sim-", async () => {
    const { experiment } = await createStudy(admin, { status: "running" });
    const real = await app.client().post<JoinResult>("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "sim-looking-real",
    });
    expect(real.status).toBe(200);
    const added = await admin.post(`/api/v1/admin/experiments/${experiment.id}/participants`, {
      login_id: "sim-added-by-hand",
    });
    expect(added.status).toBe(201);
    const simulated = await joinSimulated(app, experiment.id, "sim-dry-1");
    const list = async (query = "") =>
      (
        await admin.get<ParticipantSummary[]>(
          `/api/v1/admin/experiments/${experiment.id}/participants${query}`,
        )
      ).body.map((p) => [p.login_id, p.simulated]);
    expect(await list()).toEqual([
      ["sim-looking-real", false],
      ["sim-added-by-hand", false],
      ["sim-dry-1", true],
    ]);
    expect(await list("?simulated=true")).toEqual([["sim-dry-1", true]]);
    expect(await list("?simulated=false")).toHaveLength(2);
    expect((await simulated.client.get<Me>("/api/v1/me")).body.simulated).toBe(true);
    // The real participant who joined as sim-looking-real is real on /me too.
    const again = app.client();
    await again.post("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "sim-looking-real",
    });
    expect((await again.get<Me>("/api/v1/me")).body.simulated).toBe(false);
    // Nobody joins as a simulated participant by their login id.
    const taken = await app
      .client()
      .post("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "sim-dry-1" });
    expect([taken.status, codeOf(taken)]).toEqual([409, "duplicate_login_id"]);
  });

  it("answers 401 on /api/v1/me without a participant cookie and 403 with only an admin cookie", async () => {
    expect((await app.client().get("/api/v1/me")).status).toBe(401);
    expect((await admin.get("/api/v1/me")).status).toBe(403);
  });
});
