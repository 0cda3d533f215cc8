import { readFileSync } from "node:fs";
import path from "node:path";
import type { Survey } from "@feedlab/schemas";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { duckdb, duckdbTypes, pandasReadCsv, withFiles } from "../../../test/harness/analysis.ts";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import {
  deliverEvents,
  type Joined,
  joinWithSession,
  sendEvents,
  wireEvent,
} from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { createSurvey, sampleAnswers } from "../../../test/harness/surveys.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";
import { QUALITY_CSV_COLUMNS } from "../quality/quality.csv.ts";

/** A login id that a spreadsheet would run as a formula (OWASP's CSV injection example). */
const FORMULA = '=HYPERLINK("http://evil.example","x")';

describe.each(BACKENDS)("exports for analysts (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  let survey: Survey;
  let mallory: Joined;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { status: "running", weights: [1, 1], videoCount: 3 });
    survey = await createSurvey(admin, study.experiment.id, { kind: "pre", is_active: true });
    mallory = await joinWithSession(app.client(), study.experiment.id, FORMULA);
    const alice = await joinWithSession(app.client(), study.experiment.id, "alice");
    const video = study.videos[0]?.id;
    for (const p of [mallory, alice]) {
      const r = await sendEvents(p, [
        wireEvent("PAGE_LOAD", { seq: 1 }),
        wireEvent("IMPRESSION", {
          seq: 2,
          video_id: video,
          position_in_feed: 0,
          payload: { context: "feed" },
        }),
        wireEvent("VIDEO_PROGRESS", { seq: 3, video_id: video, watch_ratio: 0.25, watch_duration: 7.5 }),
      ]);
      expect(r.body.rejected).toEqual([]);
      const answered = await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(p === mallory ? "@SUM(1+1)" : "fine"),
      });
      expect(answered.status).toBe(201);
    }
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** A study of its own with `count` events of 64 KB payload each (26 MB for 400). */
  async function studyWithLargeEvents(count: number) {
    const own = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    await app.runtime.db.raw(
      `insert into events (event_id, session_id, user_id, login_id, experiment_id, group_id, event_type,
         video_id, timestamp, received_at, algorithm_feed, algorithm_watch, payload, seq, log_partition,
         log_offset)
       select gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'p' || g, ?, ?, 'PAGE_LOAD', null,
         timestamptz '2026-11-01 00:00:00+00' + g * interval '1 second', now(), 'recency', 'recency',
         jsonb_build_object('url', repeat('x', 65000), 'pageType', 'feed'), g, 0, 1000000 + g
       from generate_series(1, ?) g`,
      [own.experiment.id, own.groups[0]?.id as string, count],
    );
    return own;
  }

  /** The process's Parquet exports in progress, from /metrics. */
  async function exportsRunning(): Promise<number> {
    const metrics = await app.client().get("/metrics");
    return Number(/^feedlab_parquet_exports_running (\d+)$/m.exec(metrics.text)?.[1]);
  }

  const events = `/api/v1/admin/experiments/${"{id}"}/events`;
  const eventsOf = (query: string) => `${events.replace("{id}", study.experiment.id)}?${query}`;

  it("writes Parquet that DuckDB reads with the export's columns, types, order and values", async () => {
    const parquet = await admin.download(eventsOf("format=parquet"));
    expect(parquet.status).toBe(200);
    expect(parquet.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    const ndjson = (await admin.get(eventsOf("format=ndjson"))).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    await withFiles(async (file) => {
      const from = `read_parquet('${await file("events.parquet", parquet.bytes)}')`;
      expect(await duckdbTypes(from)).toEqual({
        event_id: "VARCHAR",
        session_id: "VARCHAR",
        user_id: "VARCHAR",
        login_id: "VARCHAR",
        group_id: "VARCHAR",
        event_type: "VARCHAR",
        video_id: "VARCHAR",
        timestamp: "TIMESTAMP WITH TIME ZONE",
        received_at: "TIMESTAMP WITH TIME ZONE",
        watch_ratio: "DOUBLE",
        watch_duration: "DOUBLE",
        position_in_feed: "INTEGER",
        algorithm_feed: "VARCHAR",
        algorithm_watch: "VARCHAR",
        payload: "JSON",
        experiment_id: "VARCHAR",
        group_name: "VARCHAR",
        seq: "BIGINT",
        ui_feed: "VARCHAR",
        ui_watch: "VARCHAR",
        timestamp_flag: "VARCHAR",
        ui_feed_name: "VARCHAR",
        ui_watch_name: "VARCHAR",
      });
      const rows = await duckdb(
        `SELECT event_id, login_id, group_name, seq, watch_ratio, position_in_feed, payload->>'context' AS context,
                epoch_ms(timestamp) AS ms FROM ${from}`,
      );
      expect(rows.map((r) => r.event_id)).toEqual(ndjson.map((e) => e.event_id));
      const progress = ndjson.findIndex((e) => e.event_type === "VIDEO_PROGRESS");
      expect(rows[progress]).toMatchObject({ watch_ratio: 0.25, seq: "3" });
      const impression = ndjson.findIndex((e) => e.event_type === "IMPRESSION");
      expect(rows[impression]).toMatchObject({ position_in_feed: 0, context: "feed" });
      expect(rows.map((r) => [r.login_id, r.group_name, Number(r.ms)])).toEqual(
        ndjson.map((e) => [e.login_id, e.group_name, Date.parse(String(e.timestamp))]),
      );
      // docs/events.md's DuckDB query, as written there, gives the counts the events hold.
      const doc = readFileSync(path.resolve(import.meta.dirname, "../../../docs/events.md"), "utf8");
      const query = (
        /```sql\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf("**DuckDB from an export.**")))?.[1] ?? ""
      ).replace("'events.parquet'", from);
      const perArm = await duckdb(query);
      const names = [...new Set(ndjson.map((e) => String(e.group_name)))].sort();
      expect(perArm).toEqual(
        names.map((name) => {
          const mine = ndjson.filter((e) => e.group_name === name);
          return {
            group_name: name,
            participants: String(new Set(mine.map((e) => e.user_id)).size),
            plays: String(mine.filter((e) => e.event_type === "VIDEO_PLAY").length),
            wrong_client_times: String(mine.filter((e) => e.timestamp_flag !== null).length),
          };
        }),
      );
    });
  });

  it("names each event's layouts after ui_watch and timestamp_flag: the layout's name at export time, or the preset key", async () => {
    const own = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const layout = await admin.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name: "Tall cards",
      page: "feed",
      template_type: "code",
      source: `import { FeedSurface } from "@feedlab/surfaces";\nexport default function Page() {\n  return <FeedSurface><p>tall</p></FeedSurface>;\n}\n`,
    });
    expect(layout.status).toBe(201);
    const viewer = await joinWithSession(app.client(), own.experiment.id, "layout-viewer");
    await deliverEvents(viewer, [wireEvent("PAGE_LOAD", { seq: 1 })]);
    const arm = `/api/v1/admin/groups/${own.groups[0]?.id}`;
    expect((await admin.patch(arm, { ui_config: { feed: layout.body.id, watch: "none" } })).status).toBe(200);
    await deliverEvents(viewer, [wireEvent("PAGE_LOAD", { seq: 2 })]);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);
    // Renamed after the events: the export gives the name it has now.
    await admin.patch(`/api/v1/admin/ui-templates/${layout.body.id}`, { name: "Tall cards, final" });
    const url = (format: string) => `/api/v1/admin/experiments/${own.experiment.id}/events?format=${format}`;
    const expected = [
      ["grid-desktop", "grid-desktop", "grid-desktop", "grid-desktop"],
      [`${layout.body.id}@1`, "none", "Tall cards, final", "none"],
    ];

    const csv = parseCsv((await admin.get(url("csv"))).text) as string[][];
    expect(csv[0]?.slice(-5)).toEqual([
      "ui_feed",
      "ui_watch",
      "timestamp_flag",
      "ui_feed_name",
      "ui_watch_name",
    ]);
    // Not timestamp_flag, between them: the wire events' fixed times are not this test's concern.
    expect(csv.slice(1).map((row) => [...row.slice(-5, -3), ...row.slice(-2)])).toEqual(expected);

    const ndjson = (await admin.get(url("ndjson"))).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(ndjson[0] ?? {}).slice(-5)).toEqual([
      "ui_feed",
      "ui_watch",
      "timestamp_flag",
      "ui_feed_name",
      "ui_watch_name",
    ]);
    expect(ndjson.map((e) => [e.ui_feed, e.ui_watch, e.ui_feed_name, e.ui_watch_name])).toEqual(expected);

    const parquet = await admin.download(url("parquet"));
    expect(parquet.status).toBe(200);
    await withFiles(async (file) => {
      const from = `read_parquet('${await file("names.parquet", parquet.bytes)}')`;
      expect(Object.keys(await duckdbTypes(from)).slice(-5)).toEqual([
        "ui_feed",
        "ui_watch",
        "timestamp_flag",
        "ui_feed_name",
        "ui_watch_name",
      ]);
      const rows = await duckdb(`SELECT ui_feed, ui_watch, ui_feed_name, ui_watch_name FROM ${from}`);
      expect(rows.map((r) => [r.ui_feed, r.ui_watch, r.ui_feed_name, r.ui_watch_name])).toEqual(expected);
    });
  });

  it("applies the type and time filters to a Parquet export as to the other formats", async () => {
    const all = (await admin.get(eventsOf("format=ndjson"))).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event_id: string; timestamp: string });
    const middle = all[Math.floor(all.length / 2)]?.timestamp as string;
    const filters = [
      "types=IMPRESSION,VIDEO_PROGRESS",
      `since=${encodeURIComponent(middle)}`,
      `until=${encodeURIComponent(middle)}&types=PAGE_LOAD`,
    ];
    for (const filter of filters) {
      const expected = (await admin.get(eventsOf(`format=ndjson&${filter}`))).text
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { event_id: string }).event_id);
      expect(expected.length, filter).toBeGreaterThan(0);
      expect(expected.length, filter).toBeLessThan(all.length);
      const parquet = await admin.download(eventsOf(`format=parquet&${filter}`));
      expect(parquet.status).toBe(200);
      await withFiles(async (file) => {
        const rows = await duckdb(
          `SELECT event_id FROM read_parquet('${await file("f.parquet", parquet.bytes)}')`,
        );
        expect(
          rows.map((r) => r.event_id),
          filter,
        ).toEqual(expected);
      });
    }
  });

  it("exports events with large payloads in bounded row groups (the encoder's heap is capped)", async () => {
    const own = await studyWithLargeEvents(400);
    const parquet = await admin.download(
      `/api/v1/admin/experiments/${own.experiment.id}/events?format=parquet`,
    );
    expect(parquet.status).toBe(200);
    await withFiles(async (file) => {
      const from = `read_parquet('${await file("large.parquet", parquet.bytes)}')`;
      const [row] = await duckdb(
        `SELECT count(*) AS n, min(length(payload->>'url')) AS shortest, count(DISTINCT seq) AS seqs FROM ${from}`,
      );
      expect(row).toMatchObject({ n: "400", shortest: "65000", seqs: "400" });
      const groups = await duckdb(
        `SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${await file("m.parquet", parquet.bytes)}')`,
      );
      expect(Number(groups[0]?.n)).toBeGreaterThan(1);
    });
  });

  it("stops a Parquet export whose client went away, and serves the next one whole", async () => {
    // 1,000 events of 64 KB: row groups of about 16 MB each, more than the export keeps in flight
    // while its client does not read.
    const own = await studyWithLargeEvents(1000);
    const url = `/api/v1/admin/experiments/${own.experiment.id}/events?format=parquet`;
    const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const aborted = new AbortController();
    const res = await fetch(admin.base + url, { headers: { cookie }, signal: aborted.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBeGreaterThan(0);
    expect(await exportsRunning()).toBe(1);
    aborted.abort();
    await expect.poll(exportsRunning, { timeout: 10_000, interval: 100 }).toBe(0);

    const whole = await admin.download(url);
    expect(whole.status).toBe(200);
    await withFiles(async (file) => {
      const [row] = await duckdb(
        `SELECT count(*) AS n FROM read_parquet('${await file("again.parquet", whole.bytes)}')`,
      );
      expect(row).toMatchObject({ n: "1000" });
    });
    expect(await exportsRunning()).toBe(0);
  });

  it("writes CSV that pandas and DuckDB read with numbers as numbers and times as times", async () => {
    const csv = await admin.get(eventsOf("format=csv"));
    await withFiles(async (file) => {
      const path = await file("events.csv", csv.text);
      const pandas = await pandasReadCsv(path, ["timestamp", "received_at"]);
      expect(pandas.rows).toBe(6);
      expect(pandas.dtypes).toMatchObject({
        timestamp: "datetime64[ns, UTC]",
        received_at: "datetime64[ns, UTC]",
        watch_ratio: "float64",
        seq: "int64",
        event_type: "object",
      });
      const types = await duckdbTypes(`read_csv('${path}')`);
      expect(types).toMatchObject({
        seq: "BIGINT",
        watch_ratio: "DOUBLE",
        timestamp: "TIMESTAMP WITH TIME ZONE",
      });
    });
  });

  it("keeps participant text from running as a formula in the spreadsheet-safe variant, and exact without it", async () => {
    const plain = await admin.get(eventsOf("format=csv"));
    const safe = await admin.get(eventsOf("format=csv&spreadsheet_safe=true"));
    const quoted = `"${FORMULA.replace(/"/g, '""')}"`;
    expect(plain.text).toContain(`,${quoted},`);
    expect(safe.text).not.toContain(`,${quoted},`);
    expect(safe.text).toContain(`,"'${FORMULA.replace(/"/g, '""')}",`);
    // Negative numbers stay numbers.
    expect(safe.text.split("\r\n").length).toBe(plain.text.split("\r\n").length);
    const spec = await admin.get(`/api/v1/admin/surveys/${survey.id}/responses/csv?spreadsheet_safe=true`);
    expect(spec.text).toContain(",'@SUM(1+1)\r\n");
    const exact = await admin.get(`/api/v1/admin/surveys/${survey.id}/responses/csv`);
    expect(exact.text).toContain(",@SUM(1+1)\r\n");
  });

  it("lists participants as CSV with their arm, status, sessions, events and last activity", async () => {
    const r = await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/participants?format=csv`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/csv");
    const [header, ...rows] = r.text.trim().split("\r\n");
    expect(header).toBe(
      `user_id,login_id,group_id,group_name,assignment_method,assignment_probability,status,joined_at,consented_at,finished_at,sessions,events,last_seen_at,language,reminders_sent,simulated,excluded,excluded_reason,${QUALITY_CSV_COLUMNS.join(",")}`,
    );
    expect(rows).toHaveLength(2);
    await withFiles(async (file) => {
      const pandas = await pandasReadCsv(await file("participants.csv", r.text), [
        "joined_at",
        "last_seen_at",
      ]);
      expect(pandas.dtypes).toMatchObject({
        sessions: "int64",
        events: "int64",
        joined_at: "datetime64[ns, UTC]",
      });
      expect(pandas.first).toMatchObject({ status: "started", sessions: 1, events: 3 });
      expect(String(pandas.first.group_name)).toMatch(/^Arm /);
    });
    expect(
      (await admin.get(`/api/v1/admin/experiments/${crypto.randomUUID()}/participants?format=csv`)).status,
    ).toBe(404);
  });

  it("keeps the recruiting parameters of a participant's study link and exports one column each", async () => {
    const own = await createStudy(admin, { status: "running", weights: [1] });
    const join = (login: string, recruiting?: Record<string, string>) =>
      app.client().post("/api/v1/participants/join", {
        experiment_id: own.experiment.id,
        login_id: login,
        ...(recruiting ? { recruiting } : {}),
      });
    expect((await join("5f1a", { PROLIFIC_PID: "5f1a", STUDY_ID: "st-9", SESSION_ID: "se-3" })).status).toBe(
      200,
    );
    expect((await join("plain")).status).toBe(200);
    // Returning with other values changes nothing: the first join's are kept.
    expect((await join("5f1a", { PROLIFIC_PID: "5f1a", STUDY_ID: "other" })).status).toBe(200);
    // Any other parameter is kept too (api.md "Assignment (wave 4)"), one named like a column apart;
    // a name the server cannot take as a column, or a 21st parameter, is refused.
    expect((await join("x", { age_band: "18-24", status: "vip" })).status).toBe(200);
    expect((await join("y", { "bad name": "1" })).status).toBe(422);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, "v"]));
    expect((await join("z", many)).status).toBe(422);
    const r = await admin.get(`/api/v1/admin/experiments/${own.experiment.id}/participants?format=csv`);
    const [header, ...rows] = r.text.trim().split("\r\n");
    expect(
      header?.endsWith(
        `,last_seen_at,PROLIFIC_PID,STUDY_ID,SESSION_ID,age_band,recruiting.status,language,reminders_sent,simulated,excluded,excluded_reason,${QUALITY_CSV_COLUMNS.join(",")}`,
      ),
    ).toBe(true);
    // The quality columns follow excluded_reason (empty here).
    expect(rows.find((row) => row.includes(",5f1a,"))?.includes(",5f1a,st-9,se-3,,,en,0,false,false,,")).toBe(
      true,
    );
    expect(rows.find((row) => row.includes(",plain,"))?.includes(",,,,,,en,0,false,false,,")).toBe(true);
    expect(rows.find((row) => row.includes(",x,"))?.includes(",,,,18-24,vip,en,0,false,false,,")).toBe(true);
  });

  it("leaves simulated participants out of every export unless include_simulated=true", async () => {
    // Given a real and a simulated participant, each with events, a survey response and a dismissal.
    const own = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const pre = await createSurvey(admin, own.experiment.id, { kind: "pre", is_active: true });
    const post = await createSurvey(admin, own.experiment.id, { kind: "post", is_active: true });
    const real = await joinWithSession(app.client(), own.experiment.id, "real-one");
    const simulated = await joinSimulated(app, own.experiment.id, "sim-one");
    for (const p of [real, simulated]) {
      const r = await sendEvents(p, [wireEvent("PAGE_LOAD", { seq: 1 }), wireEvent("PAGE_LOAD", { seq: 2 })]);
      expect(r.body.rejected).toEqual([]);
      const answered = await p.client.post(`/api/v1/surveys/${pre.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
      });
      expect(answered.status).toBe(201);
    }
    for (const p of [real, simulated])
      expect(
        (await p.client.post(`/api/v1/surveys/${post.id}/dismissals`, { session_id: p.sessionId })).status,
      ).toBe(204);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);

    const base = `/api/v1/admin/experiments/${own.experiment.id}`;
    const csvLogins = async (path: string, column: string) =>
      (parseCsv((await admin.get(path)).text, { columns: true }) as Record<string, string>[])
        .map((r) => r[column])
        .sort();
    const parquetLogins = async (query: string) => {
      const parquet = await admin.download(`${base}/events?format=parquet${query}`);
      expect(parquet.status).toBe(200);
      return withFiles(async (file) =>
        (
          await duckdb(`SELECT login_id FROM read_parquet('${await file("sim.parquet", parquet.bytes)}')`)
        ).map((r) => String(r.login_id)),
      );
    };
    for (const [query, logins] of [
      ["", ["real-one"]],
      ["&include_simulated=false", ["real-one"]],
      ["&include_simulated=true", ["real-one", "sim-one"]],
    ] as const) {
      const twice = logins.flatMap((l) => [l, l]);
      const ndjson = (await admin.get(`${base}/events?format=ndjson${query}`)).text
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { login_id: string }).login_id)
        .sort();
      expect(ndjson, query).toEqual(twice);
      expect(await csvLogins(`${base}/events?format=csv${query}`, "login_id"), query).toEqual(twice);
      expect((await parquetLogins(query)).sort(), query).toEqual(twice);
      expect(await csvLogins(`${base}/participants?format=csv${query}`, "login_id"), query).toEqual(logins);
      expect(
        await csvLogins(`/api/v1/admin/surveys/${pre.id}/responses/wide.csv?${query}`, "user_login_id"),
        query,
      ).toEqual(logins);
      const long = await csvLogins(`/api/v1/admin/surveys/${pre.id}/responses/csv?${query}`, "user_login_id");
      expect([...new Set(long)], query).toEqual(logins);
      expect(
        await csvLogins(`/api/v1/admin/surveys/${post.id}/dismissals.csv?${query}`, "user_login_id"),
        query,
      ).toEqual(logins);
    }
    const participants = parseCsv(
      (await admin.get(`${base}/participants?format=csv&include_simulated=true`)).text,
      { columns: true },
    ) as Record<string, string>[];
    expect(participants.map((p) => [p.login_id, p.simulated])).toEqual([
      ["real-one", "false"],
      ["sim-one", "true"],
    ]);
    expect((await admin.get(`${base}/events?format=ndjson&include_simulated=maybe`)).status).toBe(422);
  });

  it("writes the wide survey CSV: a row per response with the arm, a column per question", async () => {
    const r = await admin.get(`/api/v1/admin/surveys/${survey.id}/responses/wide.csv`);
    expect(r.status).toBe(200);
    const [header, ...rows] = r.text.trim().split("\r\n");
    expect(header).toBe(
      "response_id,user_id,user_login_id,group_id,group_name,about_session_id,created_at,language,mood,topics,why",
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/,alice,[0-9a-f-]{36},Arm [^,]+,,[0-9T:.Z-]+,en,1,1\|3,fine$/);
    await withFiles(async (file) => {
      const pandas = await pandasReadCsv(await file("wide.csv", r.text), ["created_at"]);
      expect(pandas.dtypes).toMatchObject({ mood: "int64", topics: "object", why: "object" });
    });
  });
});
