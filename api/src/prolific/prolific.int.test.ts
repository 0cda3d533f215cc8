import type { AuditEntry, BonusPlan, ProlificSubmissions, ReviewResults } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { wireEvent } from "../../../test/harness/events.ts";
import { type FakeProlific, startFakeProlific } from "../../../test/harness/fake-prolific.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { newSession } from "../../../test/harness/surveys.ts";

/** A rejection message of Prolific's least length (100 characters) and more. */
const LONG_MESSAGE =
  "Thank you for taking part. We cannot accept this submission: the study's checks found no interaction with the feed at all.";

/**
 * Prolific (api.md "Prolific (wave 4)") against a fake Prolific written from its API reference
 * (test/harness/fake-prolific.ts), on both databases: approval on finish, review decisions, bonuses
 * paid exactly once, participant groups, an outage in the middle of a bulk approval, and every call in
 * the audit log without the token.
 */
describe.each(BACKENDS)("Prolific (%s)", (backend) => {
  let fake: FakeProlific;
  let app: TestApp;
  let admin: Client;

  beforeAll(async () => {
    fake = await startFakeProlific({ pageSize: 20 });
    app = await startTestApp(backend, {
      env: { FEEDLAB_PROLIFIC_TOKEN: fake.token, FEEDLAB_PROLIFIC_URL: fake.url },
    });
    admin = await app.admin();
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await fake?.close();
  });

  /** A running study linked to a fresh Prolific study, excluding participants without pointer movement. */
  async function linked(
    onFinish: "approve" | "review",
    submissions: { participant_id: string; id?: string }[] = [],
  ) {
    const studyId = fake.seedStudy({ submissions });
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    const set = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      prolific: { study_id: studyId, on_finish: onFinish },
      completion: { after_sessions: 1, code: "DONE" },
      exclusion_rules: [{ measure: "pointer_events", op: "<", value: 1 }],
    });
    expect(set.status, set.text).toBe(200);
    expect(
      (await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "running" })).status,
    ).toBe(200);
    return { id: experiment.id, studyId };
  }

  /** Joins by a Prolific link and finishes (one session); `moves`: whether the pointer moved. */
  async function finish(id: string, studyId: string, pid: string, session: string, moves: boolean) {
    const client = app.client();
    const joined = await client.post("/api/v1/participants/join", {
      experiment_id: id,
      login_id: pid,
      recruiting: { PROLIFIC_PID: pid, STUDY_ID: studyId, SESSION_ID: session },
    });
    expect(joined.status, joined.text).toBe(200);
    const sessionId = await newSession(client);
    const events = [wireEvent("WINDOW_FOCUS"), ...(moves ? [wireEvent("MOUSE_MOVEMENT")] : [])];
    expect((await client.post("/api/v1/events", { session_id: sessionId, events })).status).toBe(202);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    expect((await client.get<{ status: string }>("/api/v1/me")).body.status).toBe("finished");
  }

  const submissions = async (id: string) => {
    const r = await admin.get<ProlificSubmissions>(`/api/v1/admin/experiments/${id}/prolific/submissions`);
    expect(r.status, r.text).toBe(200);
    return r.body.items;
  };
  const review = (id: string, decisions: unknown[], dryRun = false) =>
    admin.post<ReviewResults>(
      `/api/v1/admin/experiments/${id}/prolific/review${dryRun ? "?dry_run=true" : ""}`,
      {
        decisions,
      },
    );
  const audit = async () =>
    (await admin.get<AuditEntry[]>("/api/v1/admin/audit?limit=200")).body.filter((e) =>
      e.action.startsWith("prolific."),
    );
  /** Moves every approval on finish's next try to now: the time until the retry has passed. */
  const retryNow = () => app.runtime.db("prolific_approvals").update({ next_at: new Date(0) });

  it("approves on finish once Prolific holds the submission as awaiting review, and leaves one the rules exclude for review", async () => {
    const { id, studyId } = await linked("approve", [
      { participant_id: "pidgood0000000000000001", id: "subgood000000000000000001" },
      { participant_id: "pididle0000000000000001", id: "subidle000000000000000001" },
    ]);
    await finish(id, studyId, "pidgood0000000000000001", "subgood000000000000000001", true);
    await finish(id, studyId, "pididle0000000000000001", "subidle000000000000000001", false);
    // Still ACTIVE on Prolific (the participant has not come back there yet): waiting, nothing approved.
    await app.runtime.services.approvals.pass();
    let items = await submissions(id);
    expect(items.map((s) => [s.participant_id, s.status])).toEqual([
      ["pidgood0000000000000001", "ACTIVE"],
      ["pididle0000000000000001", "ACTIVE"],
    ]);
    expect(items[0]?.auto_approval).toMatchObject({
      state: "waiting",
      last_error: expect.stringContaining("ACTIVE"),
    });
    fake.setSubmissionStatus("subgood000000000000000001", "AWAITING REVIEW");
    fake.setSubmissionStatus("subidle000000000000000001", "AWAITING REVIEW");
    await retryNow();
    expect(await app.runtime.services.approvals.pass()).toBe(1);
    items = await submissions(id);
    const [good, idle] = items;
    expect(good).toMatchObject({
      status: "APPROVED",
      finished: true,
      excluded_by_rules: false,
      auto_approval: { state: "done" },
    });
    expect(idle).toMatchObject({
      status: "AWAITING REVIEW",
      excluded_by_rules: true,
      rules: ["pointer_events < 1"],
      auto_approval: { state: "failed", last_error: expect.stringContaining("left for review") },
    });
    expect(fake.submission("subidle000000000000000001")?.status).toBe("AWAITING REVIEW");
    const approvals = (await audit()).filter((e) => e.action === "prolific.approve" && e.target === id);
    expect(approvals[0]?.details).toMatchObject({ on_finish: true, ok: 1, failed: 0 });
  });

  it("sends review decisions as Prolific takes them, refusing a short rejection message before sending anything", async () => {
    const { id, studyId } = await linked("review", [
      { participant_id: "pidreva0000000000000001", id: "subreva000000000000000001" },
      { participant_id: "pidrevb0000000000000001", id: "subrevb000000000000000001" },
      { participant_id: "pidrevc0000000000000001", id: "subrevc000000000000000001" },
    ]);
    for (const [pid, sub, moves] of [
      ["pidreva0000000000000001", "subreva000000000000000001", true],
      ["pidrevb0000000000000001", "subrevb000000000000000001", false],
      ["pidrevc0000000000000001", "subrevc000000000000000001", false],
    ] as const) {
      await finish(id, studyId, pid, sub, moves);
      fake.setSubmissionStatus(sub, "AWAITING REVIEW");
    }
    const before = fake.requests.length;
    const short = await review(id, [
      { submission_id: "subreva000000000000000001", action: "approve" },
      {
        submission_id: "subrevb000000000000000001",
        action: "reject",
        message: "Too fast.",
        rejection_category: "LOW_EFFORT",
      },
    ]);
    expect([short.status, codeOf(short)]).toEqual([422, "invalid_decision"]);
    expect(short.text).toContain("at least 100 characters");
    const badCategory = await review(id, [
      {
        submission_id: "subrevb000000000000000001",
        action: "reject",
        message: LONG_MESSAGE,
        rejection_category: "BORED",
      },
    ]);
    expect(codeOf(badCategory)).toBe("invalid_decision");
    expect(fake.requests.length).toBe(before);

    const decisions = [
      { submission_id: "subreva000000000000000001", action: "approve" },
      {
        submission_id: "subrevb000000000000000001",
        action: "reject",
        message: LONG_MESSAGE,
        rejection_category: "NO_DATA",
      },
      { submission_id: "subrevc000000000000000001", action: "return" },
    ];
    const dry = await review(id, decisions, true);
    expect(dry.status).toBe(200);
    expect(dry.body.calls?.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST /api/v1/submissions/bulk-approve/",
      "POST /api/v1/submissions/subrevb000000000000000001/transition/",
      "POST /api/v1/submissions/subrevc000000000000000001/request-return/",
    ]);
    expect(fake.requests.filter((r) => r.method === "POST").length).toBe(
      fake.requests.slice(0, before).filter((r) => r.method === "POST").length,
    );

    const done = await review(id, decisions);
    expect(done.status, done.text).toBe(200);
    expect(done.body.results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(fake.submission("subreva000000000000000001")?.status).toBe("APPROVED");
    expect(fake.submission("subrevb000000000000000001")).toMatchObject({ status: "REJECTED" });
    // A return asks with the rules that excluded the participant, in words.
    expect(fake.submission("subrevc000000000000000001")?.request_return_reasons).toEqual([
      "pointer_events < 1",
    ]);
    const entries = (await audit()).filter((e) => e.target === id);
    expect(new Set(entries.map((e) => e.action))).toEqual(
      new Set(["prolific.submissions", "prolific.approve", "prolific.reject", "prolific.return"]),
    );
    expect(JSON.stringify(entries)).not.toContain(fake.token);
    // Named by their experiment, so its members see them in the audit log.
    expect(entries.every((e) => (e.details.about as { kind: string; id: string }[])[0]?.id === id)).toBe(
      true,
    );
  });

  it("reports a Prolific outage in the middle of a bulk approval per submission, marking done only what Prolific accepted", async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `sub${String(i).padStart(21, "0")}`);
    const { id } = await linked(
      "review",
      ids.map((sub, i) => ({ id: sub, participant_id: `pid${String(i).padStart(21, "0")}` })),
    );
    for (const sub of ids) fake.setSubmissionStatus(sub, "AWAITING REVIEW");
    // The first request of 100 is accepted; then Prolific answers 503 to everything.
    fake.failAfter(1, 503);
    const r = await review(
      id,
      ids.map((submission_id) => ({ submission_id, action: "approve" })),
    );
    expect(r.status, r.text).toBe(200);
    const ok = r.body.results.filter((x) => x.ok).map((x) => x.submission_id);
    expect(ok).toEqual(ids.slice(0, 100));
    expect(r.body.results.filter((x) => !x.ok).every((x) => (x.error ?? "").length > 0)).toBe(true);
    expect(ids.filter((s) => fake.submission(s)?.status === "APPROVED")).toEqual(ids.slice(0, 100));
    const entry = (await audit()).find((e) => e.action === "prolific.approve" && e.target === id);
    // One entry for the operation, its four tries of the failing request counted in it.
    expect(entry?.details).toMatchObject({ ok: 100, failed: 50, attempts: 5 });

    fake.clearFaults();
    const again = await review(
      id,
      ids.slice(100).map((submission_id) => ({ submission_id, action: "approve" })),
    );
    expect(again.body.results.every((x) => x.ok)).toBe(true);
    expect(ids.every((s) => fake.submission(s)?.status === "APPROVED")).toBe(true);
  }, 60_000);

  it("pays a bonus plan exactly once across a lost answer, a refused request, a retry and a process restart", async () => {
    const { id, studyId } = await linked("review", [
      { participant_id: "pidbona0000000000000001", id: "subbona000000000000000001" },
      { participant_id: "pidbonb0000000000000001", id: "subbonb000000000000000001" },
    ]);
    await finish(id, studyId, "pidbona0000000000000001", "subbona000000000000000001", true);
    await finish(id, studyId, "pidbonb0000000000000001", "subbonb000000000000000001", false);
    const pay = (bonusId: string) =>
      admin.post<{ plan: BonusPlan }>(`/api/v1/admin/experiments/${id}/prolific/bonuses/${bonusId}/pay`, {});

    // A rule: 0.5 per pointer event, at most 0.75, for finished participants the rules keep (one).
    const ruled = await admin.post<{ id: string; count: number; total: number; status: string }>(
      `/api/v1/admin/experiments/${id}/prolific/bonuses`,
      { rule: { measure: "pointer_events", per_unit: 0.5, max: 0.75 } },
    );
    expect(ruled.status, ruled.text).toBe(201);
    expect(ruled.body).toMatchObject({ count: 1, total: 0.5, status: "created" });

    const listed = await admin.post<{ id: string; total: number }>(
      `/api/v1/admin/experiments/${id}/prolific/bonuses`,
      {
        bonuses: [
          { participant_id: "pidbona0000000000000001", amount: 1.25 },
          { participant_id: "pidbonb0000000000000001", amount: 0.4 },
        ],
      },
    );
    expect(listed.status, listed.text).toBe(201);
    expect(listed.body.total).toBe(1.65);
    const [onProlific] = fake.bonusPayments().slice(-1);

    // Prolific pays, then the answer is lost: never sent again.
    fake.failNext(1, "lose-response");
    const lost = await pay(listed.body.id);
    expect([lost.status, codeOf(lost)]).toEqual([502, "payment_unconfirmed"]);
    const retried = await pay(listed.body.id);
    expect([retried.status, codeOf(retried)]).toEqual([409, "already_paid"]);
    expect(fake.bonusPayment(onProlific?.id ?? "")?.pays).toBe(1);

    // Prolific refuses (503): nothing paid, the plan can be paid again, and is, once.
    fake.failNext(1, 503);
    const refused = await pay(ruled.body.id);
    expect([refused.status, codeOf(refused)]).toEqual([503, "prolific_unavailable"]);
    const paid = await pay(ruled.body.id);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.plan.status).toBe("paid");

    app = await app.restart();
    admin = await app.admin();
    for (const bonusId of [listed.body.id, ruled.body.id])
      expect(codeOf(await pay(bonusId))).toBe("already_paid");
    const pays = fake
      .bonusPayments()
      .filter((b) => b.study === studyId)
      .map((b) => b.pays);
    expect(pays).toEqual([1, 1]);
    const plans = await admin.get<{ items: BonusPlan[] }>(`/api/v1/admin/experiments/${id}/prolific/bonuses`);
    expect(plans.body.items.map((p) => p.status).sort()).toEqual(["paid", "unknown"]);
  }, 60_000);

  it("adds the included participants to a participant group, and every finished one when asked", async () => {
    const { id, studyId } = await linked("review", [
      { participant_id: "pidgrpa0000000000000001", id: "subgrpa000000000000000001" },
      { participant_id: "pidgrpb0000000000000001", id: "subgrpb000000000000000001" },
    ]);
    await finish(id, studyId, "pidgrpa0000000000000001", "subgrpa000000000000000001", true);
    await finish(id, studyId, "pidgrpb0000000000000001", "subgrpb000000000000000001", false);
    const group = fake.seedGroup();
    const included = await admin.post<{ added: number }>(`/api/v1/admin/experiments/${id}/prolific/groups`, {
      participant_group_id: group,
      who: "included",
    });
    expect(included.body).toEqual({ added: 1 });
    expect(fake.groupMembers(group)).toEqual(["pidgrpa0000000000000001"]);
    const everyone = await admin.post<{ added: number }>(`/api/v1/admin/experiments/${id}/prolific/groups`, {
      participant_group_id: group,
      who: "finished",
    });
    expect(everyone.body).toEqual({ added: 2 });
    expect(fake.groupMembers(group).sort()).toEqual(["pidgrpa0000000000000001", "pidgrpb0000000000000001"]);
  });

  it("answers prolific_not_linked for an experiment without a Prolific study", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1 });
    const r = await admin.get(`/api/v1/admin/experiments/${experiment.id}/prolific/submissions`);
    expect([r.status, codeOf(r)]).toEqual([409, "prolific_not_linked"]);
  });
});
