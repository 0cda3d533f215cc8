import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventOf } from "@feedlab/ingest";
import { PROJECTIONS, replay } from "@feedlab/projector";
import type { AuditEntry, LoggedEvent, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, EVENT_BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey, sampleAnswers } from "../../../test/harness/surveys.ts";

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/feedlab.mjs");

/**
 * Every read model's table, and whether its rows name a participant. (A test below holds the list to
 * the projections' tables, so a new read model cannot be left out of the erasure tests.)
 */
const READ_MODELS: Record<string, boolean> = {
  events: true,
  watched_videos: true,
  video_view_counts: false,
  interactions: true,
  co_views: false,
  co_view_videos: true,
  session_activity: true,
  session_time: true,
  evaluation_counts: true,
  evaluation_timeline: false,
  response_latency: true,
  quality_sessions: true,
  quality_timelines: true,
  quality_participants: true,
};

/** `feedlab tail --from-beginning` as a data engineer runs it: one JSON object per record. */
function tail(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "tail", "--from-beginning"], {
      env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`tail exited ${code}: ${err}`));
      else
        resolve(
          out
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        );
    });
  });
}

it("covers every read model's table", () => {
  expect(Object.keys(READ_MODELS).sort()).toEqual(PROJECTIONS.flatMap((p) => p.tables).sort());
});

describe.each(EVENT_BACKENDS)("erasure (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });
  const db = () => app.runtime.db;
  const settle = async () => {
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 15_000)).toBe(true);
  };
  const snapshot = async () => {
    const out: Record<string, string[]> = {};
    for (const table of Object.keys(READ_MODELS)) {
      const rows = (await db()(table).select("*")) as Record<string, unknown>[];
      out[table] = rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();
    }
    return out;
  };
  /** Every record of the log, decoded (erased and undecodable ones left out), as replay reads them. */
  const logged = async (): Promise<LoggedEvent[]> => {
    const log = app.runtime.eventLog;
    const out: LoggedEvent[] = [];
    for (const [partition, head] of await log.position()) {
      let after = -1;
      while (after < head) {
        const records = await log.read(partition, after, 5000);
        if (records.length === 0) break;
        for (const r of records) if (!r.erased) out.push(eventOf(r));
        after = records[records.length - 1]?.offset ?? head;
      }
    }
    return out;
  };

  /** A participant's mixed activity on shared videos: plays, watches, likes, impressions, clicks, ends. */
  async function act(p: Joined, videos: readonly string[]) {
    // The feed page's answer, with the time the page took to show it (response latency).
    const events: unknown[] = [wireEvent("HOME_FEED")];
    videos.forEach((v, i) => {
      events.push(
        wireEvent("IMPRESSION", { video_id: v, position_in_feed: i, payload: { context: "feed" } }),
      );
      events.push(wireEvent("FEED_CLICK", { video_id: v, position_in_feed: i }));
      events.push(wireEvent("VIDEO_PLAY", { video_id: v }));
      events.push(wireEvent("VIDEO_WATCHED_1S", { video_id: v, seq: i }));
      if (i % 2 === 0) events.push(wireEvent("LIKE", { payload: { videoId: v } }));
      if (i % 3 === 0)
        events.push(
          wireEvent("VIDEO_ENDED", {
            video_id: v,
            payload: { duration: 30, totalWatchedTime: 29, completionRate: 0.97 },
          }),
        );
    });
    const r = await sendEvents(p, events);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.rejected).toEqual([]);
  }

  it("erases a participant (admin) and one who withdraws from every table, read model, export, tail and replay, and audits both", async () => {
    const study = await createStudy(admin, { videoCount: 6, status: "running", weights: [1, 1] });
    const ext = study.videos.map((v: Video) => v.external_id);
    const survey = await createSurvey(admin, study.experiment.id, { kind: "pre", is_active: true });
    const kept = await joinWithSession(app.client(), study.experiment.id, "kept");
    const erased = await joinWithSession(app.client(), study.experiment.id, "erased-by-admin");
    const withdrawn = await joinWithSession(app.client(), study.experiment.id, "withdraws");
    for (const p of [kept, erased, withdrawn]) {
      const answered = await p.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: p.sessionId,
        answers: sampleAnswers(),
      });
      expect(answered.status, JSON.stringify(answered.body)).toBe(201);
    }
    await act(kept, ext.slice(0, 4));
    await act(erased, ext.slice(1, 5));
    await act(withdrawn, ext.slice(2, 6));
    await settle();
    const gone = [erased.userId, withdrawn.userId];
    const before = await snapshot();
    for (const table of Object.keys(READ_MODELS).filter((t) => READ_MODELS[t]))
      expect(
        before[table]?.some((row) => row.includes(erased.userId)),
        table,
      ).toBe(true);

    const trajectory = `/api/v1/admin/participants/${erased.userId}/trajectory`;
    expect(((await admin.get<unknown[]>(trajectory)).body as unknown[]).length).toBeGreaterThan(0);
    expect((await admin.del(`/api/v1/admin/participants/${erased.userId}`)).status).toBe(204);
    expect((await withdrawn.client.post("/api/v1/me/withdraw", {})).status).toBe(204);
    // Their trajectory in the console is gone with them.
    expect((await admin.get(trajectory)).status).toBe(404);
    await settle();

    // Their cookies answer 401; an unknown participant 404; erasing again is done already.
    expect((await erased.client.get("/api/v1/me")).status).toBe(401);
    expect((await withdrawn.client.get("/api/v1/me")).status).toBe(401);
    expect((await kept.client.get("/api/v1/me")).status).toBe(200);
    expect((await admin.del(`/api/v1/admin/participants/${erased.userId}`)).status).toBe(204);
    expect((await admin.del("/api/v1/admin/participants/00000000-0000-4000-8000-000000000000")).status).toBe(
      404,
    );

    // Gone from the tables the api owns and from every read model; the kept participant is whole.
    for (const table of ["users", "sessions", "survey_responses", "auth_sessions"]) {
      const column = table === "users" ? "id" : "user_id";
      const rows = await db()(table).whereIn(column, gone).select("*");
      expect(rows, table).toEqual([]);
    }
    const after = await snapshot();
    for (const table of Object.keys(READ_MODELS)) {
      for (const id of gone)
        expect(
          after[table]?.filter((row) => row.includes(id)),
          table,
        ).toEqual([]);
    }
    expect(after.events?.filter((row) => row.includes(kept.userId)).length).toBe(
      before.events?.filter((row) => row.includes(kept.userId)).length,
    );

    // Shared counts lost exactly their part: a rebuild from the log gives the same rows.
    const full = await replay({
      db: db(),
      log: app.runtime.eventLog,
      logger: app.runtime.log,
      multiProcess: backend === "postgres",
    });
    expect(full.projections).toEqual(PROJECTIONS.map((p) => p.name));
    expect(await snapshot()).toEqual(after);

    // Exports: events (NDJSON) and participants (CSV) name only the kept participant.
    const exported = await admin.get<string>(`/api/v1/admin/experiments/${study.experiment.id}/events`);
    expect(exported.status).toBe(200);
    const exportText = typeof exported.body === "string" ? exported.body : JSON.stringify(exported.body);
    expect(exportText).toContain(kept.userId);
    for (const id of gone) expect(exportText).not.toContain(id);
    const people = await admin.get<string>(
      `/api/v1/admin/experiments/${study.experiment.id}/participants?format=csv`,
    );
    expect(String(people.body)).toContain("kept");
    expect(String(people.body)).not.toContain("withdraws");
    expect(String(people.body)).not.toContain("erased-by-admin");

    // The log: nothing of theirs is read back, by the server's reader or by `feedlab tail`.
    const inLog = await logged();
    expect(inLog.some((e) => e.user_id === kept.userId)).toBe(true);
    expect(inLog.filter((e) => gone.includes(e.user_id))).toEqual([]);
    if (backend === "pglite") {
      expect(await db()("event_log").whereIn("session_id", [erased.sessionId, withdrawn.sessionId])).toEqual(
        [],
      );
    } else {
      const config = app.runtime.config;
      const lines = await tail(
        backend === "kafka"
          ? { KAFKA_BROKERS: config.kafkaBrokers.join(","), FEEDLAB_KAFKA_TOPIC: config.kafkaTopic }
          : { DATABASE_URL: config.databaseUrl ?? "" },
      );
      expect(lines.some((l) => l.user_id === kept.userId)).toBe(true);
      expect(
        lines.filter(
          (l) => gone.includes(String(l.user_id)) || JSON.stringify(l).includes(gone[0] as string),
        ),
      ).toEqual([]);
    }

    // An append in flight when the erasure ran (say, a last beacon) stores nothing of theirs.
    const late = inLog.find((e) => e.user_id === kept.userId) as LoggedEvent;
    const appended = await app.runtime.eventLog.append([
      { ...late, event_id: crypto.randomUUID(), user_id: erased.userId, session_id: erased.sessionId },
    ]);
    expect(appended.appended).toBe(0);
    await settle();
    expect(await db()("events").where({ user_id: erased.userId })).toEqual([]);

    // The audit log: who erased whom, and how many rows, without the data.
    const audit = await admin.get<AuditEntry[]>("/api/v1/admin/audit");
    const byAdmin = audit.body.find((e) => e.action === "participant.erase" && e.target === erased.userId);
    expect(byAdmin?.admin).toBe("admin");
    const rows = byAdmin?.details.rows as { read_models: Record<string, number>; log_records: number | null };
    expect(rows).toMatchObject({ participants: 1, sessions: 1, survey_responses: 1 });
    expect(rows.read_models.events).toBeGreaterThan(0);
    if (backend === "kafka") expect(rows).toMatchObject({ log_records: null, log_keys: 1 });
    else expect(rows.log_records).toBeGreaterThan(0);
    const self = audit.body.find((e) => e.action === "participant.withdraw");
    expect(self).toMatchObject({ admin: null, target: withdrawn.userId });
    expect(JSON.stringify(audit.body)).not.toContain("withdraws");
  });

  it("erases an experiment's events and read-model rows with it", async () => {
    const study = await createStudy(admin, { videoCount: 4, status: "running", weights: [1] });
    const ext = study.videos.map((v: Video) => v.external_id);
    const people = [];
    for (let i = 0; i < 3; i++)
      people.push(await joinWithSession(app.client(), study.experiment.id, `gone-${i}`));
    for (const p of people) await act(p, ext);
    await settle();
    expect((await admin.del(`/api/v1/admin/experiments/${study.experiment.id}`)).status).toBe(204);
    await settle();
    for (const table of Object.keys(READ_MODELS))
      expect(await db()(table).where({ experiment_id: study.experiment.id }), table).toEqual([]);
    const ids = people.map((p) => p.userId);
    expect((await logged()).filter((e) => ids.includes(e.user_id))).toEqual([]);
    const audit = await admin.get<AuditEntry[]>("/api/v1/admin/audit");
    const entry = audit.body.find(
      (e) => e.action === "experiment.delete" && e.target === study.experiment.id,
    );
    expect(entry?.details.rows as Record<string, unknown>).toMatchObject({ participants: 3, sessions: 3 });
  });
});
