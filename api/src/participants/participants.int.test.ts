import {
  type JoinResult,
  type Me,
  PARTICIPANT_SORTS,
  type Participant,
  type ParticipantPage,
} from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
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
    const list = (await admin.get<ParticipantPage>(`/api/v1/admin/experiments/${experiment.id}/participants`))
      .body.items;
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
        await admin.get<ParticipantPage>(`/api/v1/admin/experiments/${experiment.id}/participants${query}`)
      ).body.items.map((p) => [p.login_id, p.simulated]);
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

  /** Every page of the list in one order, `limit` at a time, and the pages' totals. */
  async function pages(experimentId: string, query: string, limit: number) {
    const items: ParticipantPage["items"] = [];
    const totals: number[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 50; n++) {
      const after: string = cursor ? `&cursor=${cursor}` : "";
      const r = await admin.get<ParticipantPage>(
        `/api/v1/admin/experiments/${experimentId}/participants?limit=${limit}${query}${after}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(limit);
      items.push(...r.body.items);
      totals.push(r.body.total);
      cursor = r.body.next_cursor;
      if (cursor === null) break;
    }
    return { items, totals };
  }

  it("pages through every participant in each order, none lost or repeated, ties by id, whoever joins meanwhile", async () => {
    const { experiment } = await createStudy(admin, { status: "running", weights: [1, 1] });
    const base = `/api/v1/admin/experiments/${experiment.id}/participants`;
    for (const n of [7, 3, 11, 1, 9, 5, 12, 2, 10, 4, 8, 6])
      expect((await admin.post(base, { login_id: `p-${String(n).padStart(2, "0")}` })).status).toBe(201);
    // Four participants with events, seen one after another; the others never seen.
    for (const login of ["p-09", "p-02", "p-12", "p-05"]) {
      const p = await joinWithSession(app.client(), experiment.id, login);
      expect((await sendEvents(p, [wireEvent("PAGE_LOAD", { seq: 1 })])).status).toBe(202);
    }
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);

    const seen = (p: ParticipantPage["items"][number]) => p.last_seen_at ?? "";
    const orders = {
      joined_at: (p: ParticipantPage["items"][number]) => p.created_at,
      last_seen_at: seen,
      login_id: (p: ParticipantPage["items"][number]) => p.login_id,
    };
    for (const sort of PARTICIPANT_SORTS) {
      const { items, totals } = await pages(experiment.id, `&sort=${sort}`, 5);
      expect(totals).toEqual([12, 12, 12]);
      expect(new Set(items.map((p) => p.user_id)).size).toBe(12);
      const key = orders[sort.replace("-", "") as keyof typeof orders];
      const ordered = [...items].sort((a, b) =>
        key(a) === key(b) ? a.user_id.localeCompare(b.user_id) : key(a) < key(b) ? -1 : 1,
      );
      if (sort.startsWith("-")) ordered.reverse();
      expect([sort, items.map((p) => p.login_id)]).toEqual([sort, ordered.map((p) => p.login_id)]);
    }
    const newest = (await pages(experiment.id, "&sort=-last_seen_at", 100)).items;
    expect(newest.slice(0, 4).map((p) => p.login_id)).toEqual(["p-05", "p-12", "p-02", "p-09"]);
    expect(newest.slice(4).every((p) => p.last_seen_at === null)).toBe(true);

    // A page starts after the last one's participant: one who joins meanwhile is neither lost nor repeated.
    const first = await admin.get<ParticipantPage>(`${base}?limit=5`);
    expect((await admin.post(base, { login_id: "p-13" })).status).toBe(201);
    const rest = await admin.get<ParticipantPage>(`${base}?limit=100&cursor=${first.body.next_cursor}`);
    expect([...first.body.items, ...rest.body.items].map((p) => p.login_id)).toEqual([
      ...[7, 3, 11, 1, 9, 5, 12, 2, 10, 4, 8, 6, 13].map((n) => `p-${String(n).padStart(2, "0")}`),
    ]);
    expect([rest.body.total, rest.body.next_cursor]).toEqual([13, null]);
  });

  it("filters the list by status, arm, login id text and simulated, counting every match in total", async () => {
    const { experiment, groups } = await createStudy(admin, { status: "running", weights: [1, 1] });
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { consent_text: "Agree?" });
    const base = `/api/v1/admin/experiments/${experiment.id}/participants`;
    for (const [i, login] of ["Alpha-1", "alpha-2", "beta-1", "beta-2"].entries())
      await admin.post(base, { login_id: login, group_id: groups[i % 2]?.id });
    const started = await joinWithSession(app.client(), experiment.id, "gamma-1");
    expect((await started.client.post("/api/v1/participants/consent", { agree: true })).status).toBe(204);
    await deliverEvents(started, [wireEvent("PAGE_LOAD", { seq: 1 })]);
    const declined = await joinWithSession(app.client(), experiment.id, "delta-1");
    expect((await declined.client.post("/api/v1/participants/consent", { agree: false })).status).toBe(204);
    await joinSimulated(app, experiment.id, "sim-alpha");
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);

    const all = (await pages(experiment.id, "", 100)).items;
    expect(all).toHaveLength(7);
    const check = async (query: string, keep: (p: ParticipantPage["items"][number]) => boolean) => {
      const { items, totals } = await pages(experiment.id, query, 2);
      const expected = all.filter(keep).map((p) => p.login_id);
      expect([query, items.map((p) => p.login_id)]).toEqual([query, expected]);
      expect(totals.every((t) => t === expected.length)).toBe(true);
    };
    for (const status of ["joined", "started", "declined", "finished"])
      await check(`&status=${status}`, (p) => p.status === status);
    expect(all.filter((p) => p.status !== "joined").map((p) => [p.login_id, p.status])).toEqual([
      ["gamma-1", "started"],
      ["delta-1", "declined"],
    ]);
    await check(`&group_id=${groups[1]?.id}`, (p) => p.group_id === groups[1]?.id);
    await check("&q=ALPHA", (p) => p.login_id.toLowerCase().includes("alpha"));
    await check("&q=a-1&simulated=false", (p) => p.login_id.includes("a-1") && !p.simulated);
    await check("&simulated=true", (p) => p.simulated);
    await check(
      `&q=alpha&status=joined&group_id=${groups[0]?.id}`,
      (p) =>
        [p.login_id.toLowerCase().includes("alpha"), p.status, p.group_id].join() ===
        [true, "joined", groups[0]?.id].join(),
    );
  });

  it("refuses a cursor it did not give, or one of another order, and limits out of range, without a 5xx", async () => {
    const { experiment } = await createStudy(admin, { status: "running" });
    const base = `/api/v1/admin/experiments/${experiment.id}/participants`;
    for (const login of ["a", "b", "c"]) await admin.post(base, { login_id: login });
    const byLogin = await admin.get<ParticipantPage>(`${base}?limit=1&sort=login_id`);
    // Cursors made by hand: a key the order never gives is refused before the database reads it.
    const id = byLogin.body.items[0]?.user_id;
    const forged = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString("base64url");
    for (const [query, status, code] of [
      ["?cursor=not-a-cursor", 400, "invalid_cursor"],
      [`?cursor=${byLogin.body.next_cursor}&sort=-login_id`, 400, "invalid_cursor"],
      [`?cursor=${byLogin.body.next_cursor}`, 400, "invalid_cursor"],
      ["?limit=0", 422, "validation_failed"],
      ["?limit=1001", 422, "validation_failed"],
      ["?sort=created_at", 422, "validation_failed"],
      ["?status=gone", 422, "validation_failed"],
      ["?q=%00", 422, "validation_failed"],
      [`?cursor=${forged(["joined_at", "2026-11-01 not a time", id])}`, 400, "invalid_cursor"],
      [`?cursor=${forged(["joined_at", "99999999999999999999", id])}`, 400, "invalid_cursor"],
      [`?sort=login_id&cursor=${forged(["login_id", "a\u0000", id])}`, 400, "invalid_cursor"],
    ] as const) {
      const r = await admin.get(`${base}${query}`);
      expect([query, r.status, codeOf(r)]).toEqual([query, status, code]);
    }
    const next = await admin.get<ParticipantPage>(
      `${base}?limit=1&sort=login_id&cursor=${byLogin.body.next_cursor}`,
    );
    expect(next.body.items.map((p) => p.login_id)).toEqual(["b"]);
    const unknown = await admin.get(`/api/v1/admin/experiments/${crypto.randomUUID()}/participants`);
    expect(unknown.status).toBe(404);
  });

  it("answers 401 on /api/v1/me without a participant cookie and 403 with only an admin cookie", async () => {
    expect((await app.client().get("/api/v1/me")).status).toBe(401);
    expect((await admin.get("/api/v1/me")).status).toBe(403);
  });
});
