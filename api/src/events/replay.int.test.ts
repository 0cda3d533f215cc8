import { randomUUID } from "node:crypto";
import { PROJECTIONS, replay } from "@feedlab/projector";
import { encodeLoggedEvent, type Video } from "@feedlab/schemas";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, EVENT_BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";

const READ_MODELS = [
  "events",
  "watched_videos",
  "video_view_counts",
  "interactions",
  "co_views",
  "co_view_videos",
  "session_activity",
  "evaluation_counts",
  "evaluation_timeline",
];

describe.each(EVENT_BACKENDS)("replay and dead letters (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 8, status: "running", weights: [1, 2] });
  });
  afterAll(async () => {
    await app?.stop();
  });
  const db = () => app.runtime.db;
  /** Writes bytes into the event log as another writer would, bypassing intake. */
  const writeRaw = async (sessionId: string, value: Buffer) => {
    if (backend !== "kafka") {
      await db()("event_log").insert({ event_id: randomUUID(), session_id: sessionId, record: value });
      return;
    }
    const config = app.runtime.config;
    const kafka = new Kafka({
      clientId: "test-writer",
      brokers: [...config.kafkaBrokers],
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: config.kafkaTopic, messages: [{ key: sessionId, value, partition: 0 }] });
    await producer.disconnect();
  };
  const settle = async () => {
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
  };
  const snapshot = async () => {
    const out: Record<string, unknown[]> = {};
    for (const table of READ_MODELS) {
      const rows = (await db()(table).select("*")) as Record<string, unknown>[];
      out[table] = rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();
    }
    return out;
  };

  it("rebuilds exactly the rows the live run wrote, for all projections and for one", async () => {
    const ext = (i: number) => (study.videos[i] as Video).external_id;
    for (let u = 0; u < 4; u++) {
      const p = await joinWithSession(app.client(), study.experiment.id, `replay-${u}`);
      const events = [];
      for (let i = 0; i < 8; i++) {
        const v = ext((u + i) % 8);
        events.push(wireEvent("VIDEO_PLAY", { video_id: v }));
        if ((u + i) % 3 !== 0) events.push(wireEvent("VIDEO_WATCHED_1S", { video_id: v, seq: i }));
        if ((u + i) % 4 === 0) events.push(wireEvent("LIKE", { payload: { videoId: v } }));
        if ((u + i) % 5 === 0)
          events.push(
            wireEvent("VIDEO_ENDED", {
              video_id: v,
              payload: { duration: 30, totalWatchedTime: 28, completionRate: 0.93 },
            }),
          );
      }
      // Sent in two batches, the second repeating part of the first (a client retry).
      await sendEvents(p, events.slice(0, 10));
      await sendEvents(p, events.slice(5));
    }
    await settle();
    const live = await snapshot();
    expect((live.co_views ?? []).length).toBeGreaterThan(0);

    const full = await replay({
      db: db(),
      log: app.runtime.eventLog,
      logger: app.runtime.log,
      multiProcess: backend === "postgres",
    });
    expect(full.projections).toEqual(PROJECTIONS.map((p) => p.name));
    expect(await snapshot()).toEqual(live);

    await replay({
      db: db(),
      log: app.runtime.eventLog,
      logger: app.runtime.log,
      multiProcess: backend === "postgres",
      only: ["watched"],
    });
    expect(await snapshot()).toEqual(live);
    await expect(
      replay({
        db: db(),
        log: app.runtime.eventLog,
        logger: app.runtime.log,
        multiProcess: false,
        only: ["nope"],
      }),
    ).rejects.toThrow(/Unknown projection/);
  });

  it("sends a record it cannot decode or apply to dead letters with the reason, and goes on", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "dead-letters");
    await writeRaw(p.sessionId, Buffer.from([0xff, 0x00, 0x13]));
    const badRowId = randomUUID();
    const unappliable = encodeLoggedEvent({
      event_id: badRowId,
      session_id: p.sessionId,
      user_id: "not-a-uuid",
      login_id: "x",
      experiment_id: study.experiment.id,
      group_id: study.groups[0]?.id ?? "",
      event_type: "PAGE_LOAD",
      video_id: null,
      timestamp: new Date().toISOString(),
      received_at: new Date().toISOString(),
      watch_ratio: null,
      watch_duration: null,
      position_in_feed: null,
      algorithm_feed: "recency",
      algorithm_watch: "recency",
      payload: { url: "/", pageType: "feed" },
      seq: null,
      ui_feed: "grid-desktop",
      ui_watch: "grid-desktop",
    });
    await writeRaw(p.sessionId, unappliable);
    const after = wireEvent("PAGE_LOAD");
    await sendEvents(p, [after]);
    await settle();
    const dead = (await db()("dead_letters").select("reason", "log_offset")) as { reason: string }[];
    expect(dead.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^undecodable record/),
      expect.stringMatching(/^cannot apply/),
    ]);
    expect(await db()("events").where({ event_id: after.event_id }).first("event_id")).toBeDefined();
    expect(() => app.runtime.projector.healthcheck()).not.toThrow();
  });
});
