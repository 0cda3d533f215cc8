import type { AdminSurvey, Experiment } from "@feedlab/schemas";
import type { BrowserContext, Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { consoleSuite } from "./harness/e2e-suite.ts";
import { createArmStudy } from "./harness/fixtures.ts";
import { createSurvey } from "./harness/surveys.ts";

const PROLIFIC = "https://app.prolific.com/submissions/complete";
const CONSENT =
  "# Taking part\n\nYou will browse **short videos** for a few minutes.\n\n- You may stop at any time.";

/** One short question, so the surveys are quick to answer in the browser. */
const oneQuestion = (text: string) => [
  {
    id: "q1",
    text,
    type: "single" as const,
    answers: [
      { id: "yes", text: "Yes", value: 1 },
      { id: "no", text: "No", value: 0 },
    ],
  },
];

/** The event ids a page sent to the events endpoint (fetch or beacon, JSON either way). */
function sentEventIds(request: Request): string[] {
  if (!request.url().endsWith("/api/v1/events") || request.method() !== "POST") return [];
  try {
    const body = JSON.parse(request.postData() ?? "{}") as { events?: { event_id?: string }[] };
    return (body.events ?? []).flatMap((e) => (e.event_id ? [e.event_id] : []));
  } catch {
    return [];
  }
}

describe("a study from invitation to completion in Chromium", () => {
  const suite = consoleSuite("flow-e2e", "Flow test video");

  async function study(name: string, status: "draft" | "running" = "running"): Promise<Experiment> {
    return createArmStudy(suite.api, name, suite.videos, status);
  }

  async function participantContext(): Promise<BrowserContext> {
    const context = await suite.newContext();
    return context;
  }

  /** A page that fails the test on any uncaught error (the survey dialog once threw on every submit). */
  async function watchedPage(context: BrowserContext, errors: string[]): Promise<Page> {
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    return page;
  }

  const feedList = (page: Page) => page.getByRole("list", { name: "Recommended videos" });

  it("walks a Prolific participant through consent, the pre survey, two sessions and the post survey to the redirect, with every event stored first", async () => {
    const experiment = await study("Prolific study");
    const pre = await createSurvey(suite.api, experiment.id, {
      kind: "pre",
      is_active: true,
      questions: oneQuestion("Do you watch videos online?"),
    });
    const post = await createSurvey(suite.api, experiment.id, {
      kind: "post",
      is_active: true,
      questions: oneQuestion("Did you enjoy the study?"),
    });
    await createSurvey(suite.api, experiment.id, {
      kind: "inter_session",
      is_active: true,
      questions: oneQuestion("Was your last visit pleasant?"),
    });
    const patched = await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      consent_text: CONSENT,
      completion: {
        after_sessions: 2,
        after_post_survey: true,
        code: "C9XK2QPA",
        redirect_url: `${PROLIFIC}?cc={code}&pid={PROLIFIC_PID}`,
      },
    });
    expect(patched.status).toBe(200);

    const errors: string[] = [];
    const context = await participantContext();
    // The recruitment site: record when the participant arrives, what the page had sent by then, and
    // what the log held at that moment. Events the page sends as it unloads come after the redirect.
    const sent: string[] = [];
    let arrival: { url: string; stored: Set<string>; sent: string[] } | null = null;
    await context.route(`${PROLIFIC}**`, async (route) => {
      const before = [...sent];
      const rows = (await suite.app.runtime.db("event_log").select("event_id")) as { event_id: string }[];
      arrival = { url: route.request().url(), stored: new Set(rows.map((r) => r.event_id)), sent: before };
      await route.fulfill({
        status: 200,
        contentType: "text/html",
        body: "<title>Prolific</title><h1>Done</h1>",
      });
    });

    // Session 1: the join link with Prolific's parameters opens on the consent form.
    const first = await watchedPage(context, errors);
    await first.goto(
      `${suite.app.url}/join/${experiment.id}?PROLIFIC_PID=pid-77&STUDY_ID=st-1&SESSION_ID=se-1`,
    );
    await first.getByRole("heading", { name: "Consent to take part" }).waitFor();
    await first.getByRole("region", { name: "Consent form" }).getByText("short videos").waitFor();
    expect(await feedList(first).count()).toBe(0);
    expect(await axeViolations(first)).toEqual([]);
    await saveScreenshot(first, "study-flow-consent");
    await first.getByRole("button", { name: "I agree" }).click();

    // The pre survey comes next, forced.
    const preDialog = first.getByRole("dialog", { name: "Before you start" });
    await preDialog.waitFor();
    await preDialog.getByRole("radio", { name: "Yes" }).check();
    await preDialog.getByRole("button", { name: "Submit" }).click();
    await feedList(first).waitFor();
    await first
      .getByRole("link", { name: /Flow test video/ })
      .first()
      .click();
    await first.waitForURL(/\/watch\//);
    await first.locator("video").waitFor();
    await first.close({ runBeforeUnload: true });

    // Session 2: a new tab. The sessions condition is reached, so the post survey is due, and not the
    // inter-session survey about session 1.
    const second = await watchedPage(context, errors);
    second.on("request", (request) => sent.push(...sentEventIds(request)));
    // Slow acknowledgements: the redirect must wait for them.
    await context.route("**/api/v1/events", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue();
    });
    await second.goto(`${suite.app.url}/`);
    const postDialog = second.getByRole("dialog", { name: "One last thing" });
    await postDialog.waitFor();
    expect(await second.getByRole("dialog", { name: "About your last visit" }).count()).toBe(0);
    await saveScreenshot(second, "study-flow-post-survey");
    await postDialog.getByRole("radio", { name: "Yes" }).check();
    // The completion page shows the code while the last events are acknowledged (slowly, here).
    const completionShown = second
      .getByRole("heading", { name: "Thank you for taking part" })
      .waitFor({ timeout: 20_000 })
      .then(async () => {
        const code = await second.getByTestId("completion-code").textContent();
        await saveScreenshot(second, "study-flow-completion").catch(() => undefined);
        return code;
      })
      .catch(() => null);
    await postDialog.getByRole("button", { name: "Submit" }).click();

    // Then the participant lands on Prolific, and every event the page sent was in the log first.
    await second.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    const landed = arrival as { url: string; stored: Set<string>; sent: string[] } | null;
    expect(landed?.url).toBe(`${PROLIFIC}?cc=C9XK2QPA&pid=pid-77`);
    expect(landed?.sent.length).toBeGreaterThan(0);
    expect(landed?.sent.filter((id) => !landed?.stored.has(id))).toEqual([]);
    expect(await completionShown).toBe("C9XK2QPA");
    expect(errors).toEqual([]);

    // The record: consented, finished, both surveys answered, the Prolific ids kept.
    const csv = (await suite.api.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`))
      .text;
    const [header, row] = csv.trim().split("\r\n");
    const record = Object.fromEntries(
      (header ?? "").split(",").map((column, i) => [column, (row ?? "").split(",")[i]]),
    );
    expect(record).toMatchObject({ login_id: "pid-77", status: "finished", PROLIFIC_PID: "pid-77" });
    expect(record.consented_at).toMatch(/^\d{4}-/);
    expect(record.finished_at).toMatch(/^\d{4}-/);
    for (const survey of [pre, post])
      expect(
        (await suite.api.get<AdminSurvey>(`/api/v1/admin/surveys/${survey.id}`)).body.response_count,
      ).toBe(1);
  });

  it("shows the post survey before the completion code and the redirect when the rule has a code but does not wait for the survey", async () => {
    // The common Prolific set-up: one session, a code and a return link; the post survey is active.
    const experiment = await study("Prolific without waiting");
    await createSurvey(suite.api, experiment.id, {
      kind: "post",
      is_active: true,
      questions: oneQuestion("Did you enjoy the study?"),
    });
    const patched = await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      completion: { after_sessions: 1, code: "PX7Q", redirect_url: `${PROLIFIC}?cc={code}` },
    });
    expect(patched.status).toBe(200);

    const errors: string[] = [];
    const context = await participantContext();
    const redirects: string[] = [];
    await context.route(`${PROLIFIC}**`, async (route) => {
      redirects.push(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/html", body: "<title>Prolific</title>" });
    });
    const page = await watchedPage(context, errors);
    await page.goto(`${suite.app.url}/join/${experiment.id}?PROLIFIC_PID=pid-88`);
    // The session reaches the rule's condition at once: the post survey comes first (not forced).
    const postDialog = page.getByRole("dialog", { name: "One last thing" });
    await postDialog.waitFor();
    expect(await page.getByTestId("completion-code").count()).toBe(0);
    expect(redirects).toEqual([]);
    const listed = await suite.api.get<{ items: { status: string }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
    );
    expect(listed.body.items.map((p) => p.status)).not.toContain("finished");
    await postDialog.getByRole("radio", { name: "No" }).check();
    await postDialog.getByRole("button", { name: "Submit" }).click();
    await page.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    expect(redirects).toEqual([`${PROLIFIC}?cc=PX7Q`]);
    expect(errors).toEqual([]);
  });

  it("keeps a session active across a reload, with one session in the participants list", async () => {
    const experiment = await study("Reloads");
    const page = await (await participantContext()).newPage();
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=reloader`);
    await feedList(page).waitFor();
    const sessionId = await page.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
    // The unload sends SESSION_END; the reloaded page goes on in the same session.
    await page.reload();
    await feedList(page).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("feedlab.session_id"))).toBe(sessionId);

    // Once the log holds the unload's SESSION_END and a later event of the reloaded page:
    type Row = { session_id: string; event_type: string; seq: number };
    const events = async () =>
      (
        await suite.api.get(
          `/api/v1/admin/experiments/${experiment.id}/events?format=ndjson&types=SESSION_END,PAGE_LOAD`,
        )
      ).text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Row)
        .filter((r) => r.session_id === sessionId);
    const deadline = Date.now() + 30_000;
    let rows = await events();
    const reloaded = (list: Row[]) => {
      const end = list.find((r) => r.event_type === "SESSION_END");
      return end !== undefined && list.some((r) => r.event_type === "PAGE_LOAD" && r.seq > end.seq);
    };
    while (!reloaded(rows) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      rows = await events();
    }
    expect(reloaded(rows), JSON.stringify(rows)).toBe(true);

    const state = await page.request.get(`${suite.app.url}/sessions/${sessionId}`);
    expect(await state.json()).toMatchObject({ state: "active", ended_by: null });
    const listed = await suite.api.get<{ items: { login_id: string; sessions: number }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
    );
    expect(listed.body.items).toMatchObject([{ login_id: "reloader", sessions: 1 }]);
  });

  it("ends politely for a participant who declines, shows a paused study as paused and a completed one as ended", async () => {
    const experiment = await study("Declining study");
    await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, { consent_text: CONSENT });
    await createSurvey(suite.api, experiment.id, {
      kind: "post",
      is_active: true,
      questions: oneQuestion("Did you enjoy the study?"),
    });
    const errors: string[] = [];
    const page = await watchedPage(await participantContext(), errors);
    await page.goto(`${suite.app.url}/join/${experiment.id}?login_id=no-thanks`);
    await page.getByRole("button", { name: "I do not agree" }).click();
    await page.getByRole("heading", { name: "Thank you for your time" }).waitFor();
    expect(await feedList(page).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // A participant who agreed comes back while the study is paused.
    const other = await watchedPage(await participantContext(), errors);
    await other.goto(`${suite.app.url}/join/${experiment.id}?login_id=later`);
    await other.getByRole("button", { name: "I agree" }).click();
    await feedList(other).waitFor();
    await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "paused" });
    await other.reload();
    await other.getByRole("heading", { name: "This study is paused" }).waitFor();
    expect(await feedList(other).count()).toBe(0);
    await saveScreenshot(other, "study-flow-paused");

    // Completed: no feed, the post survey over the closing page, and after it the thanks.
    await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "completed" });
    await other.reload();
    await other.getByRole("heading", { name: "This study has ended" }).waitFor();
    const post = other.getByRole("dialog", { name: "One last thing" });
    await post.getByRole("radio", { name: "Yes" }).check();
    await post.getByRole("button", { name: "Submit" }).click();
    await post.waitFor({ state: "detached" });
    expect(await feedList(other).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("lets a researcher set up consent and completion in the console, with a checklist before starting", async () => {
    const experiment = await study("Console study", "draft");
    const page = await (await participantContext()).newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);

    // The checklist names what is missing: the completion below waits for a post survey.
    const flow = page.getByRole("region", { name: "Consent and completion" });
    await flow.getByLabel("Consent form").fill(CONSENT);
    await flow.getByRole("button", { name: "Preview the consent form" }).click();
    await flow
      .getByRole("region", { name: "Consent form preview" })
      .getByRole("heading", { name: "Taking part" })
      .waitFor();
    await flow.getByLabel("After this many sessions").fill("2");
    await flow.getByRole("checkbox", { name: /Only after an answer to the post-study survey/ }).check();
    await flow.getByRole("button", { name: "Generate" }).click();
    await flow.getByRole("button", { name: "Use Prolific's return link" }).click();
    // The completion page's delay: refused outside 0-60 on its field, then saved with the completion.
    const delay = flow.getByLabel("Seconds on the completion page before the return link opens");
    expect(await delay.inputValue()).toBe("5");
    await delay.fill("61");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await flow.getByText("The seconds must be a whole number from 0 to 60.").waitFor();
    expect(await delay.getAttribute("aria-invalid")).toBe("true");
    await delay.fill("8");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await page.getByText("Consent and completion saved.").waitFor();

    // Every study link starts with the server's public URL, and 127.0.0.1 is named as unreachable elsewhere.
    const { public_url } = (await suite.api.get<{ public_url: string }>("/api/v1/admin/settings")).body;
    expect(public_url).toBe(suite.app.url);
    // Said once for the page, not beside each card's links.
    const loopback = page.getByRole("note").filter({ hasText: /127\.0\.0\.1 is a loopback address/ });
    await loopback.getByText(/other networks cannot open this study's links/).waitFor();
    expect(await loopback.count()).toBe(1);
    const participantsCard = page.getByRole("region", { name: "Participants" });
    const prefix = `${public_url}/join/${experiment.id}`;
    for (const link of [flow.locator("code", { hasText: "/join/" }), participantsCard.locator("code")])
      expect((await link.first().textContent())?.slice(0, prefix.length)).toBe(prefix);

    const saved = (await suite.api.get<Experiment>(`/api/v1/admin/experiments/${experiment.id}`)).body;
    expect(saved.consent_text).toBe(CONSENT);
    expect(saved.completion).toMatchObject({
      after_sessions: 2,
      after_post_survey: true,
      code: expect.stringMatching(/^[A-Z2-9]{8}$/),
      redirect_url: `${PROLIFIC}?cc={code}`,
      redirect_delay_s: 8,
    });

    // A redirect that is not a web address is named on its field.
    await flow.getByLabel("Return link (optional)").fill("prolific complete page");
    await flow.getByRole("button", { name: "Save consent and completion" }).click();
    await flow.getByText(/^The return link must be a full web address/).waitFor();

    // Starting: the checklist lists the missing post survey, and the status stays draft.
    const status = page.getByRole("region", { name: "Status" });
    await status.getByRole("button", { name: "Start the study" }).click();
    await page
      .getByRole("dialog", { name: "Start the study?" })
      .getByRole("button", { name: "Start the study" })
      .click();
    await status
      .getByRole("alert")
      .getByText(/^Not started: first fix what “Before you start” lists below/)
      .waitFor();
    await status
      .getByRole("group", { name: "Before you start" })
      .getByText(/no post-study survey is active/)
      .waitFor();
    // The badge shows the stored status, and the start is offered again.
    expect(await page.locator(".title-row .badge").textContent()).toBe("draft");
    await status.getByRole("button", { name: "Start the study" }).waitFor();
    expect((await suite.api.get<Experiment>(`/api/v1/admin/experiments/${experiment.id}`)).body.status).toBe(
      "draft",
    );
    await saveScreenshot(page, "study-flow-console");
    expect(await axeViolations(page)).toEqual([]);
  });

  it("asks before changing a running arm with participants and records it; refuses deleting what participants use, with counts", async () => {
    const experiment = await study("Running console study");
    const joined = await suite.app.client().post("/api/v1/participants/join", {
      experiment_id: experiment.id,
      login_id: "already-in",
    });
    expect(joined.status).toBe(200);
    const page = await (await participantContext()).newPage();
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${experiment.id}`);
    const participants = page.getByRole("region", { name: "Participants" });
    await participants.getByRole("row", { name: /already-in Arm Joined 0/ }).waitFor();
    await participants.getByRole("row", { name: /already-in/ }).scrollIntoViewIfNeeded();
    await saveScreenshot(page, "study-flow-participants");

    // Changing the arm's algorithm: the first save explains, the second changes it.
    await page.getByRole("button", { name: "Edit algorithm of Arm" }).click();
    const dialog = page.getByRole("dialog", { name: /algorithm/i });
    await dialog.getByLabel("Feed algorithm").selectOption("popularity");
    await dialog.getByRole("button", { name: "Save algorithm" }).click();
    await dialog
      .getByRole("alert")
      .getByText(/participants of “Arm” get the new setting/)
      .waitFor();
    expect(
      (await suite.api.get<unknown[]>(`/api/v1/admin/experiments/${experiment.id}/changes`)).body,
    ).toEqual([]);
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await dialog.getByRole("button", { name: "Change it while running" }).click();
    await dialog.waitFor({ state: "hidden" });
    const changes = await suite.api.get<{ field: string; old_value: string; new_value: string }[]>(
      `/api/v1/admin/experiments/${experiment.id}/changes`,
    );
    expect(changes.body).toMatchObject([
      { field: "algorithm_feed", old_value: "recency", new_value: "popularity" },
    ]);

    // Deleting the arm: refused before any confirmation, with the count.
    await page.getByRole("button", { name: "Delete arm Arm" }).click();
    const refusal = page.getByRole("dialog", { name: "This arm cannot be deleted" });
    await refusal.getByText(/1 participant is assigned/).waitFor();
    await refusal.getByRole("button", { name: "OK" }).click();

    // Deleting a video of the running study's pool: refused, naming the study.
    await page.goto(`${suite.app.url}/admin/videos`);
    await page.getByRole("button", { name: "Delete video Flow test video 1" }).click();
    const video = page.getByRole("dialog", { name: "This video cannot be deleted now" });
    await video.getByText(/“Running console study”/).waitFor();
    await saveScreenshot(page, "study-flow-video-refusal");
    expect(await axeViolations(page, "dialog")).toEqual([]);
    await video.getByRole("button", { name: "OK" }).click();
    expect((await suite.api.get(`/api/v1/admin/videos/${suite.videos[0]?.id}`)).status).toBe(200);
  });

  it("shows participants the study's name and their progress toward the completion rule in their language, the minutes counting down while they stay", async () => {
    const experiment = await study("Evening screens study");
    const patched = await suite.api.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      languages: ["en", "de"],
      completion: { after_sessions: 3, after_feed_minutes: 2 },
    });
    expect(patched.status).toBe(200);
    const banner = (page: Page) => page.getByRole("banner");
    const errors: string[] = [];

    // At a laptop's width, in English: the name heads the page and its title, the progress under it.
    const laptop = await watchedPage(
      await suite.newContext({ viewport: { width: 1366, height: 850 } }),
      errors,
    );
    await laptop.clock.install();
    // The page's events stay on their way until the minutes have been read again: the visit shown is
    // this session's whether or not the server has counted the session yet (a slow network, a busy
    // server).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await laptop.route("**/api/v1/events", async (route) => {
      await held;
      await route.continue().catch(() => {}); // the page gave up on it meanwhile and sends it again
    });
    await laptop.goto(`${suite.app.url}/join/${experiment.id}?login_id=progress-en`);
    await feedList(laptop).waitFor();
    await banner(laptop).getByRole("link", { name: "Evening screens study" }).waitFor();
    await banner(laptop).getByText("Visit 1 of 3 · About 2 minutes left").waitFor();
    expect(await laptop.title()).toBe("Home · Evening screens study");
    expect(await axeViolations(laptop)).toEqual([]);
    await saveScreenshot(laptop, "study-flow-progress-1366");

    // A minute later on the same page, with no reload, one minute is left.
    await laptop.clock.fastForward("01:05");
    await banner(laptop).getByText("Visit 1 of 3 · About 1 minute left").waitFor();
    // When the time runs out on the page, it asks the server once (the server counts the minutes).
    const asked = laptop.waitForRequest(
      (r) => new URL(r.url()).pathname === "/api/v1/me" && r.method() === "GET",
    );
    await laptop.clock.fastForward("01:05");
    // About this page's session, so the visit it shows is this one's.
    expect(new URL((await asked).url()).searchParams.get("session_id")).toMatch(/^[0-9a-f-]{36}$/);
    await banner(laptop)
      .getByText(/^Visit 1 of 3/)
      .waitFor();
    release();

    // A watch page carries the study's name in its title too.
    await feedList(laptop).getByRole("link").first().click();
    await laptop.waitForURL(/\/watch\//);
    await expect.poll(() => laptop.title()).toMatch(/^Flow test video \d · Evening screens study$/);

    // On a phone, in German: the same, in the participant's language, with nothing past the screen's edge.
    const phone = await watchedPage(
      await suite.newContext({ viewport: { width: 390, height: 844 } }),
      errors,
    );
    await phone.goto(`${suite.app.url}/join/${experiment.id}?login_id=progress-de&lang=de`);
    await phone.getByRole("list", { name: "Empfohlene Videos" }).waitFor();
    await banner(phone).getByRole("link", { name: "Evening screens study" }).waitFor();
    const progress = banner(phone).getByText("Besuch 1 von 3 · Noch etwa 2 Minuten");
    await progress.waitFor();
    // The progress reads in full, not cut off at the bar's end.
    expect(await progress.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await phone.title()).toBe("Startseite · Evening screens study");
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    expect(await axeViolations(phone)).toEqual([]);
    await saveScreenshot(phone, "study-flow-progress-390");
    expect(errors).toEqual([]);
  });
});
