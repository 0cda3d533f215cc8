import { EXAMPLE_PAYLOADS } from "@feedlab/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { violationsAtBothWidths } from "./harness/axe.ts";
import { savePart, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { wireEvent } from "./harness/events.ts";
import { type FakeProlific, startFakeProlific } from "./harness/fake-prolific.ts";
import { createStudy } from "./harness/fixtures.ts";
import { newSession } from "./harness/surveys.ts";

/** Prolific's ids: 24 hexadecimal characters. */
const GOOD = { pid: "600a0000000000000000good", session: "5e55000000000000000000a1" };
const IDLE = { pid: "600b0000000000000000idle", session: "5e55000000000000000000b2" };
const MESSAGE =
  "Thank you for taking part. We cannot accept this submission: the study recorded no interaction with the feed at all.";

const noViolations = { desktop: [], phone: [] };

/**
 * Prolific in the console (api.md "Prolific (wave 4)", docs/prolific.md), against the fake Prolific
 * (test/harness/fake-prolific.ts): a researcher links a study, reviews its two submissions beside their
 * flags and rules, rejects one (a short message is stopped in the dialog), approves the other, pays a
 * bonus from a rule once, and adds the included participant to a group, without writing a request.
 */
describe("Prolific in the console (Chromium)", () => {
  let fake: FakeProlific;
  const suite = e2eSuite({
    app: async () => {
      fake = await startFakeProlific();
      return { env: { FEEDLAB_PROLIFIC_TOKEN: fake.token, FEEDLAB_PROLIFIC_URL: fake.url } };
    },
  });
  afterAll(async () => {
    await fake?.close();
  });

  /** Joins by the Prolific link's parameters and finishes (one session); `moves`: the pointer moved. */
  async function finish(id: string, studyId: string, who: { pid: string; session: string }, moves: boolean) {
    const client = suite.app.client();
    const joined = await client.post("/api/v1/participants/join", {
      experiment_id: id,
      login_id: who.pid,
      recruiting: { PROLIFIC_PID: who.pid, STUDY_ID: studyId, SESSION_ID: who.session },
    });
    expect(joined.status, joined.text).toBe(200);
    const sessionId = await newSession(client);
    // A desktop's window: without a pointer movement there, the participant is flagged "No pointer on desktop".
    const start = EXAMPLE_PAYLOADS.SESSION_START;
    const desktop = {
      ...start,
      environment: { ...start.environment, viewport: { width: 1280, height: 720 } },
    };
    const events = [
      wireEvent("SESSION_START", { payload: desktop }),
      wireEvent("WINDOW_FOCUS"),
      ...(moves ? [wireEvent("MOUSE_MOVEMENT")] : []),
    ];
    expect((await client.post("/api/v1/events", { session_id: sessionId, events })).status).toBe(202);
    const { runtime } = suite.app;
    expect(await runtime.progress.waitFor(await runtime.eventLog.position(), 10_000)).toBe(true);
    expect((await client.get<{ status: string }>("/api/v1/me")).body.status).toBe("finished");
    // The participant is back on Prolific: the submission awaits review.
    fake.setSubmissionStatus(who.session, "AWAITING REVIEW");
  }

  const posts = (path: string) => fake.requests.filter((r) => r.method === "POST" && r.path.includes(path));

  it("links a study, rejects (a short message refused in the dialog) and approves, pays a rule's bonus once and fills a group", async () => {
    const studyId = fake.seedStudy({
      name: "Feed study",
      submissions: [
        { participant_id: GOOD.pid, id: GOOD.session },
        { participant_id: IDLE.pid, id: IDLE.session },
      ],
    });
    const { experiment } = await createStudy(suite.api, {
      videoCount: 1,
      weights: [1],
      name: "Prolific study",
    });
    const id = experiment.id;
    const set = await suite.api.patch(`/api/v1/admin/experiments/${id}`, {
      completion: { after_sessions: 1, code: "DONE" },
      exclusion_rules: [{ measure: "pointer_events", op: "<", value: 1 }],
    });
    expect(set.status, set.text).toBe(200);

    // 1. The link, on the experiment's page.
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${id}`);
    const section = page.getByRole("region", { name: "Prolific", exact: true });
    await section.getByText("Not linked to a Prolific study.").waitFor();
    await section.getByRole("textbox", { name: "Prolific study id" }).fill(studyId);
    await section.getByRole("radio", { name: "Wait for my review" }).check();
    await section.getByRole("button", { name: "Save Prolific link" }).click();
    await section.getByText("Prolific knows this study: 2 submissions so far.").waitFor();
    expect((await suite.api.get(`/api/v1/admin/experiments/${id}`)).body).toMatchObject({
      prolific: { study_id: studyId, on_finish: "review" },
    });
    await section.scrollIntoViewIfNeeded();
    await savePart(section, "prolific-link");
    expect(await violationsAtBothWidths(page, "prolific-experiment")).toEqual(noViolations);

    // 2. Two participants come from Prolific and finish; one never moves the pointer (a rule excludes them).
    expect((await suite.api.patch(`/api/v1/admin/experiments/${id}`, { status: "running" })).status).toBe(
      200,
    );
    await finish(id, studyId, GOOD, true);
    await finish(id, studyId, IDLE, false);

    // 3. Review.
    await section.getByRole("link", { name: "Review submissions" }).click();
    await page.getByRole("heading", { name: "Prolific review" }).waitFor();
    const table = page.getByRole("table", { name: /2 submissions of Prolific study/ });
    const idleRow = table.getByRole("row", { name: new RegExp(IDLE.pid) });
    const goodRow = table.getByRole("row", { name: new RegExp(GOOD.pid) });
    await idleRow.getByText("Excluded by the rules:").waitFor();
    await idleRow.getByText("Pointer movements: less than 1").waitFor();
    await idleRow.getByRole("list", { name: "Quality flags" }).getByText("No pointer on desktop").waitFor();
    expect(await idleRow.getByText("AWAITING REVIEW", { exact: true }).count()).toBe(1);
    await goodRow.getByText("Kept by the rules").waitFor();
    expect(await goodRow.getByRole("link", { name: GOOD.pid }).count()).toBe(1);
    expect(await violationsAtBothWidths(page, "prolific-review")).toEqual(noViolations);

    // A rejection with a short message is stopped in the dialog: nothing reaches Prolific.
    await idleRow.getByRole("checkbox", { name: `Select ${IDLE.pid}` }).check();
    await savePart(page.getByRole("region", { name: "Submissions", exact: true }), "prolific-to-review");
    await page.getByRole("button", { name: "Reject…" }).click();
    const reject = page.getByRole("dialog", { name: "Reject a submission" });
    await reject.getByRole("combobox", { name: "Rejection category" }).selectOption({ label: "No data" });
    await reject.getByRole("textbox", { name: "Message to the participant" }).fill("Too fast.");
    await reject.getByText("9 characters: 91 more needed").waitFor();
    await reject.getByRole("button", { name: "Send the rejection" }).click();
    await reject.getByText("Prolific needs a message of at least 100 characters; this one has 9.").waitFor();
    expect(posts("/transition/")).toEqual([]);
    expect(await violationsAtBothWidths(page, "prolific-reject-dialog")).toEqual(noViolations);
    await reject.getByRole("textbox", { name: "Message to the participant" }).fill(MESSAGE);
    await reject.getByText(`${MESSAGE.length} characters: long enough for Prolific.`).waitFor();
    await savePart(reject, "prolific-reject");
    await reject.getByRole("button", { name: "Send the rejection" }).click();
    await reject.waitFor({ state: "detached" });
    await page.getByText("Prolific accepted the decision.").waitFor();
    expect(fake.submission(IDLE.session)).toMatchObject({
      status: "REJECTED",
      rejection: { message: MESSAGE, rejection_category: "NO_DATA" },
    });
    await idleRow.getByText("REJECTED", { exact: true }).waitFor();

    await goodRow.getByRole("checkbox", { name: `Select ${GOOD.pid}` }).check();
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await goodRow.getByText("Approved: Prolific accepted it").waitFor();
    expect(fake.submission(GOOD.session)?.status).toBe("APPROVED");
    await goodRow.getByText("APPROVED", { exact: true }).waitFor();
    await saveScreenshot(page, "prolific-reviewed");
    await savePart(page.getByRole("region", { name: "Submissions", exact: true }), "prolific-submissions");

    // 4. A bonus from a rule: 0.50 per pointer movement, at most 0.75, for those the rules keep (one).
    const bonuses = page.getByRole("region", { name: "Bonuses" });
    await bonuses.getByRole("radio", { name: "By a rule on a quality measure" }).check();
    await bonuses
      .getByRole("combobox", { name: "Quality measure" })
      .selectOption({ label: "Pointer movements" });
    await bonuses.getByRole("spinbutton", { name: "Amount per unit" }).fill("0.5");
    await bonuses.getByRole("spinbutton", { name: "Most per participant" }).fill("0.75");
    await bonuses.getByRole("button", { name: "Set up the bonuses" }).click();
    await bonuses.getByText("Set up on Prolific: 1 bonus, £0.50 in all").waitFor();
    const [payment] = fake.bonusPayments().filter((b) => b.study === studyId);
    expect(payment).toMatchObject({ pays: 0, amount: 50 });
    await savePart(bonuses, "prolific-bonus-plan");
    await bonuses.getByRole("button", { name: "Pay £0.50 to 1 participant" }).click();
    const confirm = page.getByRole("dialog", { name: "Pay these bonuses?" });
    await confirm.getByText("Feedlab sends this request once.").waitFor();
    expect(await violationsAtBothWidths(page, "prolific-pay-dialog")).toEqual(noViolations);
    await savePart(confirm, "prolific-pay");
    await confirm.getByRole("button", { name: "Pay £0.50 to 1 participant" }).click();
    await bonuses.getByText("Paid: Prolific accepted £0.50 to 1 participant.").waitFor();
    await bonuses.getByRole("row", { name: /Paid/ }).waitFor();
    expect(await bonuses.getByRole("button", { name: /^Pay / }).count()).toBe(0);
    expect(fake.bonusPayment(payment?.id ?? "")?.pays).toBe(1);
    expect(fake.submission(GOOD.session)?.bonus_payments).toEqual([50]);
    await savePart(bonuses, "prolific-bonuses");

    // 5. The included participant in a group for the next wave: first as a dry run, which sends nothing.
    const group = fake.seedGroup({ name: "Wave 1 finishers" });
    const groups = page.getByRole("region", { name: "Participant group for the next wave" });
    await page.getByRole("switch", { name: "Dry run" }).check();
    await groups.getByRole("textbox", { name: "Participant group id" }).fill(group);
    await groups.getByRole("radio", { name: /^Included/ }).check();
    await groups.getByRole("button", { name: "Add to the group" }).click();
    await groups.getByText(`POST /api/v1/participant-groups/${group}/participants/`).waitFor();
    expect(fake.groupMembers(group)).toEqual([]);
    await savePart(groups, "prolific-group-dry-run");
    await page.getByRole("switch", { name: "Dry run" }).uncheck();
    await groups.getByRole("button", { name: "Add to the group" }).click();
    await groups.getByText("Added 1 participant to the group on Prolific.").waitFor();
    expect(fake.groupMembers(group)).toEqual([GOOD.pid]);
    expect(await violationsAtBothWidths(page, "prolific-review-done")).toEqual(noViolations);

    // Paying again is refused without a call to Prolific; every call is in the audit log.
    const again = await suite.api.post(
      `/api/v1/admin/experiments/${id}/prolific/bonuses/${(await plans(id))[0]}/pay`,
      {},
    );
    expect(again.status).toBe(409);
    expect(fake.bonusPayment(payment?.id ?? "")?.pays).toBe(1);
    expect(posts("/pay/")).toHaveLength(1);
  });

  /** The experiment's bonus plans' ids, newest first. */
  async function plans(id: string): Promise<string[]> {
    const r = await suite.api.get<{ items: { id: string }[] }>(
      `/api/v1/admin/experiments/${id}/prolific/bonuses`,
    );
    return r.body.items.map((p) => p.id);
  }
});

describe("Prolific in the console without a token on the server (Chromium)", () => {
  const suite = e2eSuite();

  it("says plainly that the server needs FEEDLAB_PROLIFIC_TOKEN, on the experiment's page and the review page", async () => {
    const { experiment } = await createStudy(suite.api, { videoCount: 1, weights: [1], name: "No token" });
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const section = page.getByRole("region", { name: "Prolific", exact: true });
    await section.getByRole("textbox", { name: "Prolific study id" }).fill("65a1b2c3d4e5f60718293a4b");
    await section.getByRole("button", { name: "Save Prolific link" }).click();
    const problem = section.getByRole("alert");
    await problem.getByText("Prolific is not set up on this server.").waitFor();
    await problem.getByText(/Ask whoever runs the server to set FEEDLAB_PROLIFIC_TOKEN/).waitFor();
    await savePart(section, "prolific-not-configured");

    await page.getByRole("link", { name: "Prolific review" }).click();
    await page
      .getByRole("region", { name: "Submissions", exact: true })
      .getByText(/Ask whoever runs the server to set FEEDLAB_PROLIFIC_TOKEN/)
      .waitFor();
    expect(await violationsAtBothWidths(page, "prolific-review-not-configured")).toEqual(noViolations);
  });
});
