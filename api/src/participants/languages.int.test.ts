import { randomUUID } from "node:crypto";
import type { Experiment, Me } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey } from "../../../test/harness/surveys.ts";
import { QUALITY_SURVEY, surveyAnswers } from "../quality/quality.fixture.ts";

/** api.md "Participant languages": a study's languages, each participant's, and the exports. */
describe.each(BACKENDS)("participant languages (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let experimentId: string;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    const study = await createStudy(admin, { status: "running", videoCount: 1, weights: [1] });
    experimentId = study.experiment.id;
    const r = await admin.patch<Experiment>(`/api/v1/admin/experiments/${experimentId}`, {
      languages: ["en", "de", "fr", "zh-Hans"],
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Joins with a browser that prefers `browser` (an Accept-Language header) and the link's `lang`. */
  async function join(login: string, { lang, browser }: { lang?: string; browser?: string } = {}) {
    const client = new Client(app.url, browser === undefined ? {} : { "accept-language": browser });
    const r = await client.post<{ user_id: string }>("/api/v1/participants/join", {
      experiment_id: experimentId,
      login_id: login,
      ...(lang === undefined ? {} : { lang }),
    });
    expect(r.status).toBe(200);
    return { client, userId: r.body.user_id };
  }
  const me = async (client: Client) => (await client.get<Me>("/api/v1/me")).body;

  it("takes a participant's language from the link, else the browser's preferences, else the default", async () => {
    const cases: [string, { lang?: string; browser?: string }, string][] = [
      ["link", { lang: "de", browser: "fr" }, "de"],
      ["link-region", { lang: "DE-at" }, "de"],
      ["browser", { browser: "fr-CA,fr;q=0.9,en;q=0.8" }, "fr"],
      ["browser-second", { browser: "ja,de;q=0.5" }, "de"],
      ["unlisted-link", { lang: "nl", browser: "zh-CN" }, "zh-Hans"],
      // Traditional Chinese is not read as the simplified script the study lists.
      ["other-script", { browser: "zh-TW" }, "en"],
      ["nothing", {}, "en"],
    ];
    for (const [login, how, expected] of cases) {
      const { client } = await join(login, how);
      const got = await me(client);
      expect([login, got.language]).toEqual([login, expected]);
      expect(got.languages).toEqual(["en", "de", "fr", "zh-Hans"]);
    }
    // The participants CSV says it, after the recruiting parameters' columns and before `excluded`.
    const csv = await admin.get(`/api/v1/admin/experiments/${experimentId}/participants?format=csv`);
    const [header = "", ...rows] = csv.text.trim().split("\r\n");
    const columns = header.split(",");
    const at = columns.indexOf("language");
    expect(at).toBeGreaterThan(columns.indexOf("last_seen_at"));
    expect(at).toBeLessThan(columns.indexOf("excluded"));
    const byLogin = new Map(rows.map((row) => row.split(",")).map((cells) => [cells[1], cells[at]]));
    for (const [login, , expected] of cases) expect([login, byLogin.get(login)]).toEqual([login, expected]);
  });

  it("keeps a returning participant's language unless the link names another of the study's, and records the change", async () => {
    const first = await join("returning", { browser: "fr" });
    expect((await me(first.client)).language).toBe("fr");
    // Back with a German browser: still French. Back with `lang=de`: German, recorded.
    expect((await me((await join("returning", { browser: "de" })).client)).language).toBe("fr");
    expect((await me((await join("returning", { lang: "de" })).client)).language).toBe("de");
    expect((await me((await join("returning", { lang: "nl" })).client)).language).toBe("de");
    const changes = await app.runtime
      .db("participant_language_changes")
      .where({ user_id: first.userId })
      .select("from_language", "to_language");
    expect(changes).toEqual([{ from_language: "fr", to_language: "de" }]);
  });

  it("lets a participant change language only where the study allows it, to one it lists, in the same session", async () => {
    const { client, userId } = await join("switcher", { lang: "en" });
    const sessionId = randomUUID();
    expect((await client.post("/sessions", { session_id: sessionId })).status).toBe(201);
    const change = (language: string) => client.put("/api/v1/me/language", { language });
    const off = await change("de");
    expect([off.status, codeOf(off)]).toEqual([403, "language_switch_off"]);
    expect((await me(client)).language_switch).toBe(false);

    const on = await admin.patch<Experiment>(`/api/v1/admin/experiments/${experimentId}`, {
      language_switch: true,
    });
    expect(on.body.language_switch).toBe(true);
    const unknown = await change("ja");
    expect([unknown.status, codeOf(unknown)]).toEqual([422, "unknown_language"]);
    expect((await change("de")).status).toBe(204);
    const after = await me(client);
    expect([after.language, after.user_id, after.language_switch]).toEqual(["de", userId, true]);
    // The session goes on: its next page's events are taken.
    const events = await sendEvents({ client, userId, sessionId }, [wireEvent("PAGE_LOAD")]);
    expect([events.status, events.body.rejected]).toEqual([202, []]);
    const changes = await app.runtime.db("participant_language_changes").where({ user_id: userId });
    expect(changes.map((c) => [c.from_language, c.to_language])).toEqual([["en", "de"]]);
  });

  it("stores the language each survey response was shown in, and the wide CSV gives it after created_at", async () => {
    const survey = await createSurvey(admin, experimentId, {
      kind: "pre",
      is_active: true,
      questions: QUALITY_SURVEY,
    });
    for (const [login, lang] of [
      ["answers-de", "de"],
      ["answers-fr", "fr"],
    ] as const) {
      const { client } = await join(login, { lang });
      const sessionId = randomUUID();
      expect((await client.post("/sessions", { session_id: sessionId })).status).toBe(201);
      const r = await client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: sessionId,
        answers: surveyAnswers([4, 3, 5, 2, 4], 4),
      });
      expect(r.status).toBe(201);
    }
    const wide = await admin.get(`/api/v1/admin/surveys/${survey.id}/responses/wide.csv`);
    const [header = "", ...rows] = wide.text.trim().split("\r\n");
    const columns = header.split(",");
    expect(columns.indexOf("language")).toBe(columns.indexOf("created_at") + 1);
    const byLogin = new Map(
      rows.map((row) => row.split(",")).map((c) => [c[2], c[columns.indexOf("language")]]),
    );
    expect(Object.fromEntries(byLogin)).toEqual({ "answers-de": "de", "answers-fr": "fr" });
  });

  it("refuses a language that is not BCP 47, one listed twice, and a default it does not list, and changes nothing", async () => {
    const patch = (body: Record<string, unknown>) =>
      admin.patch<Experiment>(`/api/v1/admin/experiments/${experimentId}`, body);
    const refused = [
      [await patch({ languages: ["en", "not a tag"] }), 422],
      [await patch({ languages: ["en", "EN"] }), 422, "invalid_language"],
      [await patch({ languages: ["en", "de"], default_language: "fr" }), 422, "default_language_not_listed"],
    ] as const;
    for (const [r, status, code] of refused) {
      expect(r.status).toBe(status);
      if (code !== undefined) expect(codeOf(r)).toBe(code);
    }
    const now = (await admin.get<Experiment>(`/api/v1/admin/experiments/${experimentId}`)).body;
    expect([now.languages, now.default_language]).toEqual([["en", "de", "fr", "zh-Hans"], "en"]);
    // Dropping the default's language makes the first listed the default.
    const kept = await patch({ languages: ["de", "fr", "en", "zh-Hans"], default_language: "fr" });
    expect(kept.body.default_language).toBe("fr");
    const moved = await patch({ languages: ["de", "en", "zh-Hans"] });
    expect([moved.status, moved.body.default_language]).toEqual([200, "de"]);
  });
});
