import type { Me, ParticipantPage } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { violationsAtBothWidths } from "./harness/axe.ts";
import { savePart, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy } from "./harness/fixtures.ts";
import { startTestSmtp, type TestSmtp } from "./harness/smtp.ts";

const noViolations = { desktop: [], phone: [] };

/** The participant's own view of where they stand, read with their cookie from their page. */
const meOf = (page: Page) =>
  page.evaluate(async () => (await (await fetch("/api/v1/me")).json()) as Me) as Promise<Me>;

/** Waits until `check` holds of the participant, polling their /me. */
async function until(page: Page, check: (me: Me) => boolean, timeoutMs: number): Promise<Me> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const me = await meOf(page);
    if (check(me)) return me;
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(me)}`);
    await page.waitForTimeout(1000);
  }
}

/**
 * A longitudinal study in Chromium (api.md "Longitudinal studies (wave 4)", docs/longitudinal.md) on a
 * schedule of minutes, with a real SMTP server in this process: the researcher sets the windows and
 * reminders in the console; Ana agrees with her address, comes back too early once (and is told when),
 * gets the reminder by e-mail and follows its link back, starts her third session from the waiting
 * page once it opens, and finishes; Ben never comes back and lapses. The results page shows both in
 * the attrition chart and test; erasing Ana leaves her address nowhere.
 */
describe("a study on a schedule (Chromium)", () => {
  let smtp: TestSmtp;
  const suite = e2eSuite({
    app: async () => {
      smtp = await startTestSmtp();
      return { env: { FEEDLAB_SMTP_URL: smtp.url, FEEDLAB_MAIL_FROM: "Daily study <study@example.org>" } };
    },
    videos: [{ prefix: "daily", title: "Daily" }],
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it("takes one participant through three sessions on time and shows the other's lapse in the attrition", async () => {
    const { app, api } = suite;
    const study = await createStudy(api, { videoCount: 0, weights: [1, 1], name: "Daily diary" });
    const id = study.experiment.id;
    expect(
      (await api.put(`/api/v1/admin/experiments/${id}/videos`, { video_ids: suite.videos.map((v) => v.id) }))
        .status,
    ).toBe(200);
    const set = await api.patch(`/api/v1/admin/experiments/${id}`, {
      consent_text: "Three short visits, each a little after the last.",
      completion: { after_sessions: 3, code: "DAILY3" },
    });
    expect(set.status, set.text).toBe(200);

    // The researcher sets the schedule in the console: sessions 2 and 3 open 36 s (the least a window may
    // open after) and close 75 s after the previous one began, with reminders by e-mail. A window of 39 s:
    // the reminder keeper's round is 10 s and a participant's page takes a few; the test waits about as
    // long as Ben's window lasts.
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const researcher = await context.newPage();
    await signInToConsole(researcher, app.url);
    await researcher.goto(`${app.url}/admin/experiments/${id}`);
    const section = researcher.getByRole("region", { name: "Schedule and reminders" });
    await section.getByRole("button", { name: "Add a session" }).click();
    await section.getByRole("button", { name: "Add a session" }).click();
    for (const n of [2, 3]) {
      await section.getByRole("spinbutton", { name: `Session ${n} opens after`, exact: true }).fill("0.6");
      await section.getByRole("combobox", { name: `Session ${n} opens after, unit` }).selectOption("minutes");
      await section.getByRole("spinbutton", { name: `Session ${n} closes after`, exact: true }).fill("1.25");
      await section
        .getByRole("combobox", { name: `Session ${n} closes after, unit` })
        .selectOption("minutes");
    }
    await section.getByRole("checkbox", { name: "Remind participants by e-mail" }).check();
    await section.getByRole("button", { name: "Save schedule and reminders" }).click();
    await researcher.getByText("Schedule and reminders saved.").waitFor();
    expect(await violationsAtBothWidths(researcher, "longitudinal-schedule")).toEqual(noViolations);
    await savePart(section, "longitudinal-schedule-section");
    const experiment = (
      await api.get<{ schedule: unknown; reminders: unknown }>(`/api/v1/admin/experiments/${id}`)
    ).body;
    const windows = experiment.schedule as {
      session: number;
      opens_after_hours: number;
      closes_after_hours: number;
    }[];
    expect(windows.map((w) => w.session)).toEqual([2, 3]);
    for (const w of windows) {
      expect(w.opens_after_hours * 60).toBeCloseTo(0.6, 6);
      expect(w.closes_after_hours * 60).toBeCloseTo(1.25, 6);
    }
    expect(experiment.reminders).toMatchObject({ email: true });
    expect((await api.patch(`/api/v1/admin/experiments/${id}`, { status: "running" })).status).toBe(200);

    // Ana agrees and gives her address; her first session begins.
    const anaContext = await suite.newContext({ viewport: { width: 1280, height: 800 } });
    const ana = await anaContext.newPage();
    await ana.goto(`${app.url}/join/${id}?login_id=ana`);
    await ana.getByLabel("Your e-mail address (optional)").fill("ana.daily@example.org");
    expect(await violationsAtBothWidths(ana, "longitudinal-consent")).toEqual(noViolations);
    await ana.getByRole("button", { name: "I agree" }).click();
    await ana.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().waitFor();
    await until(ana, (me) => me.progress.sessions === 1, 20_000);

    // Ana comes back at once, in a new tab: too early. The page says when to return.
    const early = await anaContext.newPage();
    await early.goto(`${app.url}/join/${id}?login_id=ana`);
    await early.getByRole("heading", { name: "Please come back later" }).waitFor();
    await early.getByText("Session 2 of this study is not open yet.").waitFor();
    expect(await violationsAtBothWidths(early, "longitudinal-early")).toEqual(noViolations);
    await saveScreenshot(early, "longitudinal-early");
    await early.close();

    // Ben agrees without an address, has one session, and never comes back.
    const benContext = await suite.newContext({ viewport: { width: 1280, height: 800 } });
    const ben = await benContext.newPage();
    await ben.goto(`${app.url}/join/${id}?login_id=ben`);
    await ben.getByRole("button", { name: "I agree" }).click();
    await ben.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().waitFor();
    await until(ben, (me) => me.progress.sessions === 1, 20_000);
    await ben.close();

    // The window opens: the reminder arrives, in English, with her link and an unsubscribe link.
    const [mail] = await smtp.waitFor(1, 90_000);
    expect(mail?.to).toEqual(["ana.daily@example.org"]);
    expect(mail?.subject).toBe("Daily diary: session 2 is open");
    expect(mail?.listUnsubscribe).toMatch(/\/unsubscribe\//);
    const link = /https?:\/\/\S+\/join\/\S+/.exec(mail?.text ?? "")?.[0] ?? "";
    expect(link).toContain("login_id=ana");
    const second = await anaContext.newPage();
    await second.goto(link);
    await second.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().waitFor();
    await until(second, (me) => me.progress.sessions === 2, 20_000);
    await second.close();

    // Straight back again: too early for session 3; she waits on the page and starts it when it opens.
    const third = await anaContext.newPage();
    await third.goto(link);
    await third.getByRole("heading", { name: "Please come back later" }).waitFor();
    await third.getByRole("button", { name: "Start session 3" }).click({ timeout: 90_000 });
    await third.getByText("DAILY3").waitFor({ timeout: 30_000 });
    expect((await meOf(third)).status).toBe("finished");

    // Ben's window closes unused: lapsed (read by the researcher: a visit of his now would use it), and
    // told so when he comes back.
    const lapsedBy = Date.now() + 150_000;
    const lapsedOnes = async () =>
      (
        await api.get<ParticipantPage>(`/api/v1/admin/experiments/${id}/participants?status=lapsed`)
      ).body.items.map((p) => p.login_id);
    while ((await lapsedOnes()).length === 0 && Date.now() < lapsedBy) await third.waitForTimeout(1000);
    expect(await lapsedOnes()).toEqual(["ben"]);
    const benBack = await benContext.newPage();
    await benBack.goto(`${app.url}/join/${id}?login_id=ben`);
    await benBack.getByRole("heading", { name: "This study has closed for you" }).waitFor();
    expect(await benBack.getByText("DAILY3").count()).toBe(0);
    expect(await violationsAtBothWidths(benBack, "longitudinal-lapsed")).toEqual(noViolations);
    await saveScreenshot(benBack, "longitudinal-lapsed");
    expect((await meOf(benBack)).status).toBe("lapsed");

    // The results page: both in the attrition chart and its table, and the test's sentence.
    await researcher.goto(`${app.url}/admin/experiments/${id}/results`);
    const card = researcher.getByRole("region", { name: "Attrition" });
    await card.getByRole("img", { name: "Participants still in by session, per arm" }).waitFor();
    await card.getByText(/attrition differs between arms/i).waitFor();
    const table = card.getByRole("table", {
      name: "Participants who began each session and who lapsed, per arm",
    });
    const text = (await table.textContent()) ?? "";
    expect(text).toMatch(/Arm 1/);
    expect(text).toMatch(/Arm 2/);
    expect(await violationsAtBothWidths(researcher, "longitudinal-attrition")).toEqual(noViolations);
    await savePart(card, "longitudinal-attrition-card");
    const attrition = (
      await api.get<{ arms: { sessions: { session: number; started: number; lapsed: number }[] }[] }>(
        `/api/v1/admin/experiments/${id}/attrition`,
      )
    ).body;
    const total = (session: number, k: "started" | "lapsed") =>
      attrition.arms
        .flatMap((a) => a.sessions)
        .filter((s) => s.session === session)
        .reduce((n, s) => n + s[k], 0);
    expect([total(1, "started"), total(2, "started"), total(3, "started"), total(2, "lapsed")]).toEqual([
      2, 1, 1, 1,
    ]);

    // Erasing Ana leaves her address in no table and no export.
    const anaId = (await meOf(third)).user_id;
    expect((await api.request("DELETE", `/api/v1/admin/participants/${anaId}`)).status).toBe(204);
    const db = app.runtime.db;
    const tables = (await db
      .select("table_name")
      .from("information_schema.tables")
      .where({ table_schema: "public", table_type: "BASE TABLE" })) as { table_name: string }[];
    for (const { table_name } of tables) {
      const hit = await db.raw("select 1 from ?? t where t::text like ? limit 1", [
        table_name,
        "%ana.daily%",
      ]);
      expect((hit as { rows?: unknown[] }).rows ?? hit, table_name).toHaveLength(0);
    }
    const csv = (await api.get(`/api/v1/admin/experiments/${id}/participants?format=csv`)).text;
    expect(csv).not.toContain("ana.daily");
    const events = (await api.get(`/api/v1/admin/experiments/${id}/events?format=ndjson`)).text;
    expect(events).not.toContain("ana.daily");
  }, 420_000);
});
