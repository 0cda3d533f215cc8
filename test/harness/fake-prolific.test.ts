import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type FakeProlific, startFakeProlific } from "./fake-prolific.ts";

const LONG_MESSAGE =
  "Your submission skipped the three attention checks described in the instructions, so the data cannot be used.";

let prolific: FakeProlific;
let studyId: string;

/** A call as Feedlab makes it: JSON body, `Authorization: Token <token>` unless told otherwise. */
async function call(method: string, path: string, body?: unknown, authorization?: string) {
  const res = await fetch(`${prolific.url}${path}`, {
    method,
    headers: {
      authorization: authorization ?? `Token ${prolific.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
/** The fields of Prolific's answers (its API reference's shapes) that these tests read. */
interface Answer {
  readonly id: string;
  readonly error: { readonly status: number; readonly detail: Record<string, unknown> | string };
  readonly results: readonly { readonly id?: string; readonly participant_id?: string }[];
  readonly meta: { readonly count: number };
  readonly _links: { readonly next: { readonly href: string | null } };
  readonly return_requested: unknown;
}
/** An answer's body, read by the fields Prolific documents (the assertions check their values). */
const answer = (x: unknown) => x as Answer;

beforeEach(async () => {
  prolific = await startFakeProlific({ pageSize: 2 });
  studyId = prolific.seedStudy({
    id: "study1",
    submissions: [
      { id: "sub1", participant_id: "pid1", status: "AWAITING REVIEW" },
      { id: "sub2", participant_id: "pid2", status: "AWAITING REVIEW" },
      { id: "sub3", participant_id: "pid3", status: "ACTIVE" },
    ],
  });
});
afterEach(async () => {
  await prolific.close();
});

describe("fake Prolific", () => {
  test("refuses a missing or wrong token with 401 and records headers without the token", async () => {
    const none = await fetch(`${prolific.url}/api/v1/submissions/sub1/`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Token");
    const wrong = await call("GET", "/api/v1/submissions/sub1/", undefined, "Token nope");
    expect(wrong.status).toBe(401);
    expect(answer(wrong.body).error).toMatchObject({ status: 401, detail: "Invalid token." });
    const bearer = await call("GET", "/api/v1/submissions/sub1/", undefined, `Bearer ${prolific.token}`);
    expect(bearer.status).toBe(401);

    await call("GET", "/api/v1/submissions/sub1/");
    expect(prolific.requests).toHaveLength(4);
    expect(prolific.requests[3]).toMatchObject({
      method: "GET",
      path: "/api/v1/submissions/sub1/",
      headers: { authorization: "Token <redacted>" },
      status: 200,
    });
    expect(JSON.stringify(prolific.requests)).not.toContain(prolific.token);
  });

  test("lists a study's submissions page by page, following _links.next", async () => {
    const first = await call("GET", `/api/v1/studies/${studyId}/submissions/`);
    expect(first.status).toBe(200);
    const page1 = answer(first.body);
    expect(page1.meta.count).toBe(3);
    expect(page1.results.map((s) => s.id)).toEqual(["sub1", "sub2"]);
    expect(page1.results[0]).toMatchObject({ participant_id: "pid1", status: "AWAITING REVIEW" });
    const next = new URL(page1._links.next.href ?? "");
    const second = answer((await call("GET", `${next.pathname}${next.search}`)).body);
    expect(second.results.map((s) => s.id)).toEqual(["sub3"]);
    expect(second._links.next.href).toBeNull();
    expect((await call("GET", "/api/v1/studies/nostudy/submissions/")).status).toBe(404);
  });

  test("retrieves one submission, naming the participant `participant`", async () => {
    const res = await call("GET", "/api/v1/submissions/sub3/");
    expect(res.body).toMatchObject({ id: "sub3", study_id: studyId, participant: "pid3", status: "ACTIVE" });
    expect((await call("GET", "/api/v1/submissions/nosuch/")).status).toBe(404);
  });

  test("approves only from AWAITING REVIEW, and ignores the same approval sent again", async () => {
    const ok = await call("POST", "/api/v1/submissions/sub1/transition/", { action: "APPROVE" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: "sub1", status: "APPROVED", participant: "pid1" });
    const again = await call("POST", "/api/v1/submissions/sub1/transition/", { action: "APPROVE" });
    expect(again).toMatchObject({ status: 200, body: { status: "APPROVED" } });

    const early = await call("POST", "/api/v1/submissions/sub3/transition/", { action: "APPROVE" });
    expect(early.status).toBe(400);
    expect(prolific.submission("sub3")?.status).toBe("ACTIVE");
    prolific.setSubmissionStatus("sub3", "AWAITING REVIEW");
    expect((await call("POST", "/api/v1/submissions/sub3/transition/", { action: "APPROVE" })).status).toBe(
      200,
    );

    const rejectApproved = await call("POST", "/api/v1/submissions/sub1/transition/", {
      action: "REJECT",
      message: LONG_MESSAGE,
      rejection_category: "FAILED_CHECK",
    });
    expect(rejectApproved.status).toBe(400);
    expect((await call("POST", "/api/v1/submissions/sub2/transition/", { action: "MAYBE" })).status).toBe(
      400,
    );
  });

  test("refuses a rejection whose message is under 100 characters or whose category is unknown", async () => {
    const short = await call("POST", "/api/v1/submissions/sub2/transition/", {
      action: "REJECT",
      message: "Too fast.",
      rejection_category: "TOO_QUICKLY",
    });
    expect(short.status).toBe(400);
    expect(answer(short.body).error.detail).toEqual({
      message: ["Ensure this field has at least 100 characters."],
    });
    const category = await call("POST", "/api/v1/submissions/sub2/transition/", {
      action: "REJECT",
      message: LONG_MESSAGE,
      rejection_category: "BORING",
    });
    expect(category.status).toBe(400);
    expect(Object.keys(answer(category.body).error.detail)).toEqual(["rejection_category"]);
    expect(prolific.submission("sub2")?.status).toBe("AWAITING REVIEW");

    expect(LONG_MESSAGE.length).toBeGreaterThanOrEqual(100);
    const ok = await call("POST", "/api/v1/submissions/sub2/transition/", {
      action: "REJECT",
      message: LONG_MESSAGE,
      rejection_category: "FAILED_CHECK",
    });
    expect(ok).toMatchObject({ status: 200, body: { status: "REJECTED" } });
    expect(prolific.submission("sub2")?.rejection).toEqual({
      message: LONG_MESSAGE,
      rejection_category: "FAILED_CHECK",
    });
  });

  test("bulk-approves by submission ids or by study and participant ids, skipping what cannot be approved", async () => {
    const bySubmission = await call("POST", "/api/v1/submissions/bulk-approve/", {
      submission_ids: ["sub1", "sub3", "unknown"],
    });
    expect(bySubmission).toEqual({
      status: 200,
      body: "The request to bulk approve has been made successfully.",
    });
    expect(prolific.submission("sub1")?.status).toBe("APPROVED");
    expect(prolific.submission("sub3")?.status).toBe("ACTIVE");

    const byParticipant = await call("POST", "/api/v1/submissions/bulk-approve/", {
      study_id: studyId,
      participant_ids: ["pid2"],
    });
    expect(byParticipant.status).toBe(200);
    expect(prolific.submission("sub2")?.status).toBe("APPROVED");

    expect(
      (await call("POST", "/api/v1/submissions/bulk-approve/", { participant_ids: ["pid2"] })).status,
    ).toBe(400);
    expect((await call("POST", "/api/v1/submissions/bulk-approve/", { submission_ids: [] })).status).toBe(
      400,
    );
  });

  test("requests a return with reasons, keeping the status until the participant returns", async () => {
    expect((await call("POST", "/api/v1/submissions/sub1/request-return/", {})).status).toBe(400);
    const res = await call("POST", "/api/v1/submissions/sub1/request-return/", {
      request_return_reasons: ["Withdrew consent"],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: "sub1", status: "AWAITING REVIEW", participant: "pid1" });
    expect(typeof answer(res.body).return_requested).toBe("string");
    expect(prolific.submission("sub1")?.request_return_reasons).toEqual(["Withdrew consent"]);
    prolific.setSubmissionStatus("sub1", "RETURNED");
    expect((await call("GET", "/api/v1/submissions/sub1/")).body).toMatchObject({ status: "RETURNED" });
  });

  test("sets up bonuses in the study's currency, answers cents, and counts every pay call", async () => {
    const created = await call("POST", "/api/v1/submissions/bonus-payments/", {
      study_id: studyId,
      csv_bonuses: "pid1,4.25\nsub2,4.25\n",
    });
    expect(created.status).toBe(201);
    const payment = answer(created.body);
    expect(payment).toMatchObject({
      study: studyId,
      amount: 850,
      fees: 283.34,
      vat: 0,
      total_amount: 1133.34,
    });
    expect(prolific.bonusPayment(payment.id)?.pays).toBe(0);

    const paid = await call("POST", `/api/v1/bulk-bonus-payments/${payment.id}/pay/`);
    expect(paid.status).toBe(202);
    expect(typeof paid.body).toBe("string");
    expect(prolific.bonusPayment(payment.id)?.pays).toBe(1);
    expect((await call("GET", "/api/v1/submissions/sub1/")).body).toMatchObject({ bonus_payments: [425] });

    // Not idempotent on Prolific: a second pay call pays again.
    expect((await call("POST", `/api/v1/bulk-bonus-payments/${payment.id}/pay/`)).status).toBe(202);
    expect(prolific.bonusPayment(payment.id)?.pays).toBe(2);
    expect(prolific.submission("sub1")?.bonus_payments).toEqual([425, 425]);

    const stranger = await call("POST", "/api/v1/submissions/bonus-payments/", {
      study_id: studyId,
      csv_bonuses: "pid1,1.00\nstranger,1.00",
    });
    expect(stranger.status).toBe(400);
    expect(JSON.stringify(stranger.body)).toContain("stranger");
    const badAmount = await call("POST", "/api/v1/submissions/bonus-payments/", {
      study_id: studyId,
      csv_bonuses: "pid1,-1",
    });
    expect(badAmount.status).toBe(400);
    expect((await call("POST", "/api/v1/bulk-bonus-payments/nosuch/pay/")).status).toBe(404);
    expect(prolific.bonusPayments()).toHaveLength(1);
  });

  test("adds participants to a group, ignoring members already in it", async () => {
    const groupId = prolific.seedGroup({ participant_ids: ["pid1"] });
    const res = await call("POST", `/api/v1/participant-groups/${groupId}/participants/`, {
      participant_ids: ["pid1", "pid2"],
    });
    expect(res.status).toBe(200);
    expect(answer(res.body).results.map((r) => r.participant_id)).toEqual(["pid1", "pid2"]);
    expect(prolific.groupMembers(groupId)).toEqual(["pid1", "pid2"]);
    const listed = await call("GET", `/api/v1/participant-groups/${groupId}/participants/`);
    expect(answer(listed.body).results).toHaveLength(2);
    expect(
      (await call("POST", "/api/v1/participant-groups/nosuch/participants/", { participant_ids: [] })).status,
    ).toBe(404);
    expect((await call("POST", `/api/v1/participant-groups/${groupId}/participants/`, {})).status).toBe(400);
  });

  test("fails on purpose: the next requests, an outage, after k requests, and a lost response", async () => {
    prolific.failNext(2, 503);
    expect((await call("GET", "/api/v1/submissions/sub1/")).status).toBe(503);
    const second = await call("POST", "/api/v1/submissions/sub1/transition/", { action: "APPROVE" });
    expect(second.status).toBe(503);
    expect(answer(second.body).error.status).toBe(503);
    expect(prolific.submission("sub1")?.status).toBe("AWAITING REVIEW");
    expect((await call("GET", "/api/v1/submissions/sub1/")).status).toBe(200);

    prolific.setOutage("drop");
    await expect(call("GET", "/api/v1/submissions/sub1/")).rejects.toThrow();
    prolific.setOutage(false);

    // An outage in the middle of a run of approvals: two pass, then Prolific is down.
    prolific.failAfter(2, 503);
    const statuses = [];
    for (const id of ["sub1", "sub2"]) {
      statuses.push(
        (await call("POST", `/api/v1/submissions/${id}/transition/`, { action: "APPROVE" })).status,
      );
    }
    prolific.setSubmissionStatus("sub3", "AWAITING REVIEW");
    statuses.push((await call("POST", "/api/v1/submissions/sub3/transition/", { action: "APPROVE" })).status);
    expect(statuses).toEqual([200, 200, 503]);
    expect(prolific.submission("sub3")?.status).toBe("AWAITING REVIEW");
    prolific.clearFaults();

    // The pay call reaches Prolific but its answer is lost: the caller sees a network error, Prolific paid.
    const created = answer(
      (
        await call("POST", "/api/v1/submissions/bonus-payments/", {
          study_id: studyId,
          csv_bonuses: "pid1,1.00",
        })
      ).body,
    );
    prolific.failNext(1, "lose-response");
    await expect(call("POST", `/api/v1/bulk-bonus-payments/${created.id}/pay/`)).rejects.toThrow();
    expect(prolific.bonusPayment(created.id)?.pays).toBe(1);
    expect(prolific.requests.filter((r) => r.fault).map((r) => r.status)).toEqual([
      503,
      503,
      "dropped",
      503,
      "dropped",
    ]);
  });
});
