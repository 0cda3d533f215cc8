import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { gunzipSync } from "node:zlib";
import type { Attrition, AuditEntry, Me, ParticipantPage } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { startTestSmtp, type TestSmtp } from "../../../test/harness/smtp.ts";
import { newSession, visit } from "../../../test/harness/surveys.ts";
import { writeBackup } from "../db/backup.ts";

const HOUR = 3_600_000;

/**
 * Longitudinal studies (api.md "Longitudinal studies (wave 4)") over HTTP, with a real SMTP server in
 * this process: windows, an early session, reminders when a window opens and before it closes (each
 * once, retried when the server refuses), unsubscribing, lapses, attrition, the CSV, the audit log, and
 * an erasure that leaves the address nowhere. Time passes by moving a participant's session beginnings
 * (the arrival times the schedule reads) back, so a schedule of hours is tested in seconds.
 */
describe.each(BACKENDS)("longitudinal studies (%s)", (backend) => {
  let smtp: TestSmtp;
  let app: TestApp;
  let admin: Client;
  let experimentId: string;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    app = await startTestApp(backend, {
      env: { FEEDLAB_SMTP_URL: smtp.url, FEEDLAB_MAIL_FROM: "Study team <study@example.org>" },
    });
    admin = await app.admin();
    const { experiment } = await createStudy(admin, { videoCount: 2, weights: [1, 1] });
    experimentId = experiment.id;
    const set = await admin.patch(`/api/v1/admin/experiments/${experimentId}`, {
      consent_text: "Three visits, a day apart.",
      completion: { after_sessions: 3, code: "DONE3" },
      schedule: [
        { session: 2, opens_after_hours: 1, closes_after_hours: 2 },
        { session: 3, opens_after_hours: 1, closes_after_hours: 2 },
      ],
      reminders: { email: true, before_close_hours: 0.25 },
    });
    expect(set.status, set.text).toBe(200);
    const started = await admin.patch(`/api/v1/admin/experiments/${experimentId}`, { status: "running" });
    expect(started.status, started.text).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
  });

  const db = () => app.runtime.db;
  /** The arms of the participants who give an address or not (all but the first test's). */
  const arms = new Set<string>();
  const keeper = () => app.runtime.services.scheduleKeeper;

  /** Moves the participant's session beginnings `ms` into the past: that much time has passed. */
  const pass = (userId: string, ms: number) =>
    db()("session_time")
      .where({ user_id: userId })
      .update({ first_received_at: db().raw("first_received_at - make_interval(secs => ?)", [ms / 1000]) });

  /** Joins and agrees, giving the address; answers the client and the participant's id. */
  async function join(login: string, email?: string) {
    const client = app.client();
    const joined = await client.post<{ user_id: string }>("/api/v1/participants/join", {
      experiment_id: experimentId,
      login_id: login,
    });
    expect(joined.status, joined.text).toBe(200);
    const me = await client.get<Me>("/api/v1/me");
    expect(me.body.email_reminders).toBe(true);
    const consent = await client.post("/api/v1/participants/consent", {
      agree: true,
      version: me.body.consent?.version,
      ...(email === undefined ? {} : { email }),
    });
    expect(consent.status, consent.text).toBe(204);
    arms.add(String(me.body.group_id));
    return { client, userId: joined.body.user_id };
  }
  const me = async (client: Client, session?: string) =>
    (await client.get<Me>(`/api/v1/me${session ? `?session_id=${session}` : ""}`)).body;

  it("refuses a malformed address with 422 invalid_email and stores nothing", async () => {
    const client = app.client();
    const joined = await client.post<{ user_id: string }>("/api/v1/participants/join", {
      experiment_id: experimentId,
      login_id: "typo",
    });
    const r = await client.post("/api/v1/participants/consent", { agree: true, email: "ana@@example" });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("invalid_email");
    expect((await me(client)).consent?.consented_at).toBeNull();
    expect(
      await db()("participant_contacts").where({ user_id: joined.body.user_id }).first(),
    ).toBeUndefined();
  });

  it("holds an early session back until its window, reminds once when it opens, and counts the session begun in it", async () => {
    const ana = await join("ana", "ana@example.org");
    const first = await visit(app, ana.client);
    let now = await me(ana.client, first);
    expect(now.session_open).toBe(true);
    expect(now.progress.sessions).toBe(1);
    expect(now.next_session?.session).toBe(2);
    const opensIn = Date.parse(now.next_session?.opens_at ?? "") - Date.now();
    expect(opensIn).toBeGreaterThan(0.9 * HOUR);
    expect(Date.parse(now.next_session?.closes_at ?? "") - Date.parse(now.next_session?.opens_at ?? "")).toBe(
      HOUR,
    );

    // Back too early: the pages refuse the session, its events are stored but never count.
    const early = await newSession(ana.client);
    expect((await me(ana.client, early)).session_open).toBe(false);
    const refused = await ana.client.get(`/feed?session_id=${early}`);
    expect(refused.status).toBe(409);
    expect(codeOf(refused)).toBe("session_not_open");
    expect(detailsOf<{ opens_at: string }>(refused)?.opens_at).toBe(now.next_session?.opens_at);
    await visit(app, ana.client, early);
    expect((await me(ana.client)).progress.sessions).toBe(1);

    // Nothing is due before the window; once it opens, one reminder, and never a second.
    await keeper().round();
    expect(smtp.received).toHaveLength(0);
    await pass(ana.userId, 1.1 * HOUR);
    await keeper().round();
    await keeper().round();
    const [mail] = await smtp.waitFor(1);
    expect(smtp.received).toHaveLength(1);
    expect(mail?.to).toEqual(["ana@example.org"]);
    expect(mail?.from).toBe("study@example.org");
    expect(mail?.secure).toBe(true);
    expect(mail?.user).toBe("feedlab");
    expect(mail?.subject).toBe("Study: session 2 is open");
    expect(mail?.text).toContain(`/join/${experimentId}?login_id=ana`);
    expect(mail?.listUnsubscribe).toMatch(/\/unsubscribe\/[A-Za-z0-9_-]+$/);
    expect(mail?.text).toContain(mail?.listUnsubscribe ?? "no link");

    // The early session still does not count; a new one, begun in the window, does.
    expect((await me(ana.client, early)).session_open).toBe(false);
    const second = await newSession(ana.client);
    expect((await me(ana.client, second)).session_open).toBe(true);
    expect((await ana.client.get(`/feed?session_id=${second}`)).status).toBe(200);
    await visit(app, ana.client, second);
    now = await me(ana.client, second);
    expect(now.progress.sessions).toBe(2);
    expect(now.progress.visit).toBe(2);
    expect(now.next_session?.session).toBe(3);
    // No reminder for a window already used.
    await keeper().round();
    expect(smtp.received).toHaveLength(1);

    const audit = (await admin.get<AuditEntry[]>("/api/v1/admin/audit?limit=200")).body.filter(
      (e) => e.action === "reminders.sent",
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]?.details).toMatchObject({ count: 1 });
    expect(JSON.stringify(audit)).not.toContain("ana@example.org");
  });

  it("reminds before the close, retries a refused message, and stops after the unsubscribe link", async () => {
    const ben = await join("ben", "ben@example.org");
    await visit(app, ben.client);
    // 1 h 50 min after session 1 began: the close reminder (15 min before) is due, the opening's passed.
    await pass(ben.userId, (1 + 50 / 60) * HOUR);
    smtp.refuseNext(1);
    const before = smtp.received.length;
    await keeper().round();
    expect(smtp.received).toHaveLength(before);
    // Retried after its wait (moved to now), then accepted once.
    await db()("reminder_messages")
      .where({ user_id: ben.userId })
      .update({ next_at: new Date(0) });
    await keeper().round();
    await keeper().round();
    const mails = (await smtp.waitFor(before + 1)).filter((m) => m.to.includes("ben@example.org"));
    expect(mails.map((m) => m.subject)).toEqual(["Study: session 2 closes soon"]);
    expect(mails[0]?.text).toMatch(/closes in (9|10) minutes/);

    const link = mails[0]?.listUnsubscribe ?? "";
    const path = new URL(link).pathname;
    const page = await app.client().get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain("no more reminders");
    expect((await app.client().get(path)).status).toBe(200);
    expect((await app.client().post(path, {})).status).toBe(200);
    expect((await app.client().get("/unsubscribe/nobody-has-this-token")).status).toBe(404);
    expect(
      await db()("participant_contacts")
        .where({ user_id: ben.userId })
        .whereNotNull("unsubscribed_at")
        .first(),
    ).toBeDefined();
  });

  it("reports a reminder the mail server refused four times (three retries), and never sends it", async () => {
    const eve = await join("eve", "eve@example.org");
    await visit(app, eve.client);
    await pass(eve.userId, 1.1 * HOUR);
    smtp.refuseNext(4);
    const before = smtp.received.length;
    for (let attempt = 0; attempt < 5; attempt++) {
      await db()("reminder_messages")
        .where({ user_id: eve.userId })
        .update({ next_at: new Date(0) });
      await keeper().round();
    }
    expect(smtp.received.slice(before).filter((m) => m.to.includes("eve@example.org"))).toEqual([]);
    expect(await db()("reminder_messages").where({ user_id: eve.userId }).first()).toMatchObject({
      status: "failed",
      attempts: 4,
    });
    const failed = (await admin.get<AuditEntry[]>("/api/v1/admin/audit?limit=200")).body.filter(
      (e) => e.action === "reminders.failed",
    );
    expect(failed.map((e) => (e.details as { count: number }).count)).toEqual([1]);
  });

  it("makes a participant whose window closed unused lapsed: final, in /me, the list, the CSV and the attrition", async () => {
    const cleo = await join("cleo");
    const first = await visit(app, cleo.client);
    await pass(cleo.userId, 2 * HOUR + 30_000);
    await keeper().round();
    const now = await me(cleo.client, first);
    expect(now.status).toBe("lapsed");
    expect(now.completion).toBeNull();
    expect(now.next_session).toBeNull();
    const feed = await cleo.client.get(`/feed?session_id=${first}`);
    expect(feed.status).toBe(403);
    expect(codeOf(feed)).toBe("participant_lapsed");
    // Final: a session now changes nothing.
    await visit(app, cleo.client);
    expect((await me(cleo.client)).status).toBe("lapsed");

    const list = await admin.get<ParticipantPage>(
      `/api/v1/admin/experiments/${experimentId}/participants?status=lapsed`,
    );
    expect(list.body.items.map((p) => [p.login_id, p.status])).toEqual([["cleo", "lapsed"]]);
    const csv = (await admin.get(`/api/v1/admin/experiments/${experimentId}/participants?format=csv`)).text;
    const [header, ...rows] = csv.trim().split("\n");
    const columns = header?.split(",") ?? [];
    const cell = (login: string, column: string) =>
      rows.find((r) => r.split(",")[1] === login)?.split(",")[columns.indexOf(column)];
    expect(columns.indexOf("reminders_sent")).toBe(columns.indexOf("language") + 1);
    expect(cell("cleo", "status")).toBe("lapsed");
    expect(cell("ana", "reminders_sent")).toBe("1");
    expect(cell("cleo", "reminders_sent")).toBe("0");

    const attrition = await admin.get<Attrition>(`/api/v1/admin/experiments/${experimentId}/attrition`);
    expect(attrition.status, attrition.text).toBe(200);
    const all = attrition.body.arms.flatMap((a) => a.sessions);
    const sum = (session: number, k: "started" | "lapsed") =>
      all.filter((s) => s.session === session).reduce((n, s) => n + s[k], 0);
    // ana, ben, eve and cleo began session 1; ana began session 2; cleo lapsed at 2 (ben's and eve's
    // windows are open).
    expect([sum(1, "started"), sum(2, "started"), sum(3, "started")]).toEqual([4, 1, 0]);
    expect(sum(2, "lapsed")).toBe(1);
    // Nobody reached session 3 yet, in either arm: no difference to test (0, p 1); one arm alone: none.
    expect(attrition.body.differential).toEqual(arms.size > 1 ? { chi_square: 0, df: 1, p: 1 } : null);
  });

  it("erases the address with the participant: no table holds it, sealed or not", async () => {
    const dora = await join("dora", "dora.unique@example.org");
    /** Every row of every table, as text, that holds the address in the clear. */
    const tablesHolding = async (needle: string) => {
      const tables = (await db()
        .select("table_name")
        .from("information_schema.tables")
        .where({ table_schema: "public", table_type: "BASE TABLE" })) as { table_name: string }[];
      const holding: string[] = [];
      for (const { table_name } of tables) {
        const hit = await db().raw(`select 1 from ?? t where t::text like ? limit 1`, [
          table_name,
          `%${needle}%`,
        ]);
        const rows = (hit as { rows?: unknown[] }).rows ?? (hit as unknown[]);
        if (rows.length > 0) holding.push(table_name);
      }
      return holding;
    };
    // Sealed while kept: the address is in no table in the clear, and a backup leaves the keys out.
    expect(await db()("participant_contacts").where({ user_id: dora.userId }).first()).toBeDefined();
    expect(await tablesHolding("dora.unique")).toEqual([]);
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on("data", (c: Buffer) => chunks.push(c));
    await writeBackup(db(), sink, { database: backend });
    await finished(sink);
    const backup = gunzipSync(Buffer.concat(chunks)).toString("utf8");
    expect(backup).toContain("T\tparticipant_contacts");
    expect(backup).not.toContain("T\tparticipant_keys");
    expect(backup).not.toContain("dora.unique");
    expect((await admin.request("DELETE", `/api/v1/admin/participants/${dora.userId}`)).status).toBe(204);
    expect(await db()("participant_contacts").where({ user_id: dora.userId }).first()).toBeUndefined();
    expect(await db()("participant_keys").where({ user_id: dora.userId }).first()).toBeUndefined();
    const csv = (await admin.get(`/api/v1/admin/experiments/${experimentId}/participants?format=csv`)).text;
    expect(csv).not.toContain("dora");
  });
});

describe("a study that sends reminders by e-mail", () => {
  it("cannot start on a server without FEEDLAB_SMTP_URL, nor without a consent text", async () => {
    const app = await startTestApp("pglite");
    try {
      const admin = await app.admin();
      const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
      await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { reminders: { email: true } });
      const r = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: "running" });
      expect(r.status).toBe(422);
      const problems = (detailsOf<{ problems: { problem: string }[] }>(r)?.problems ?? []).map(
        (p) => p.problem,
      );
      expect(problems).toEqual(expect.arrayContaining(["no_mail_server", "reminders_without_consent"]));
      // A schedule's windows must be in order and close after they open; a reminder fits in them.
      const bad = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        schedule: [{ session: 2, opens_after_hours: 5, closes_after_hours: 4 }],
      });
      expect(bad.status).toBe(422);
      expect(codeOf(bad)).toBe("invalid_schedule");
      expect(detailsOf<{ field: string }>(bad)?.field).toBe("schedule[0].closes_after_hours");
      const gap = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        schedule: [{ session: 3, opens_after_hours: 1, closes_after_hours: 2 }],
      });
      expect(codeOf(gap)).toBe("invalid_schedule");
      const long = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        schedule: [{ session: 2, opens_after_hours: 1, closes_after_hours: 2 }],
        reminders: { email: true, before_close_hours: 1 },
      });
      expect(codeOf(long)).toBe("invalid_reminders");
      const tiny = await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        schedule: [{ session: 2, opens_after_hours: 0.001, closes_after_hours: 2 }],
      });
      expect(tiny.status).toBe(422);
    } finally {
      await app.stop();
    }
  }, 60_000);
});
