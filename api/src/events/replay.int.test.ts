import { randomUUID } from "node:crypto";
import { PROJECTIONS, redriveDeadLetters, replay } from "@feedlab/projector";
import { encodeLoggedEvent, forgetWriterSchema, type Video } from "@feedlab/schemas";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, EVENT_BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import {
  NEXT_EVENT_TYPE,
  NEXT_FINGERPRINT,
  nextReleaseEvent,
  publishNextSchema,
  writtenByNextRelease,
} from "../../../test/harness/next-release.ts";
import { openEventLog, type Store } from "../app/clients.ts";

/** Every read model's table: what a replay must rebuild row for row. */
const READ_MODELS = PROJECTIONS.flatMap((p) => p.tables);

/** Each backend, and Kafka on the second client too: a replay applies partitions side by side on either. */
const VARIANTS = [
  ...EVENT_BACKENDS.map((backend) => ({ backend, label: backend, env: {} })),
  {
    backend: "kafka" as const,
    label: "kafka on platformatic",
    env: { FEEDLAB_KAFKA_CLIENT: "platformatic" },
  },
];

describe.each(VARIANTS)("replay and dead letters ($label)", ({ backend, env }) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend, { env });
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 8, status: "running", weights: [1, 2] });
  });
  afterAll(async () => {
    await app?.stop();
    // The next release's schema leaves with this file: later files in this worker have not read it.
    forgetWriterSchema(NEXT_FINGERPRINT);
  });
  const db = () => app.runtime.db;
  /** Writes bytes into the event log as another writer would, bypassing intake. */
  const writeRaw = async (sessionId: string, value: Buffer, eventId = randomUUID()) => {
    if (backend !== "kafka") {
      await db()("event_log").insert({ event_id: eventId, session_id: sessionId, record: value });
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
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 60_000)).toBe(true);
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
    const sends: Promise<unknown>[] = [];
    for (let u = 0; u < 4; u++) {
      const p = await joinWithSession(app.client(), study.experiment.id, `replay-${u}`);
      // A second session of the same participant (on Kafka, most likely another partition) watching
      // the same videos at the same time: which watch came first must not depend on which
      // partition is applied first.
      const second = { ...p, sessionId: randomUUID() };
      expect((await p.client.post("/sessions", { session_id: second.sessionId })).status).toBe(201);
      const events = [];
      const again = [];
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
        again.push(wireEvent("VIDEO_WATCHED_1S", { video_id: ext((u + 7 * i) % 8), seq: i }));
      }
      // Sent in two batches, the second repeating part of the first (a client retry), while the
      // second session sends its own.
      sends.push(
        (async () => {
          await deliverEvents(p, events.slice(0, 10));
          await deliverEvents(p, events.slice(5));
        })(),
        (async () => {
          for (let i = 0; i < again.length; i += 2) await sendEvents(second, again.slice(i, i + 2));
        })(),
      );
    }
    await Promise.all(sends);
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
    await deliverEvents(p, [after]);
    await settle();
    const dead = (await db()("dead_letters").select("reason", "log_offset")) as { reason: string }[];
    expect(dead.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^undecodable record/),
      expect.stringMatching(/^cannot apply/),
    ]);
    expect(await db()("events").where({ event_id: after.event_id }).first("event_id")).toBeDefined();
    expect(() => app.runtime.projector.healthcheck()).not.toThrow();
  });

  it("re-drives dead letters after the fix: a newer writer's record applies once its schema is published, broken ones stay", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "newer-writer");
    // Unknown here, even if this test's run on another backend looked it up.
    forgetWriterSchema(NEXT_FINGERPRINT);
    const eventId = randomUUID();
    const value = writtenByNextRelease(
      nextReleaseEvent(
        {
          sessionId: p.sessionId,
          userId: p.userId,
          loginId: "newer-writer",
          experimentId: study.experiment.id,
          groupId: study.groups[0]?.id ?? "",
        },
        { event_id: eventId, payload: { reaction: "wow" } },
      ),
    );
    // Written before its writer published the schema (a release that skipped that step, say).
    await writeRaw(p.sessionId, value, eventId);
    await deliverEvents(p, [wireEvent("PAGE_LOAD")]);
    await settle();
    const reasons = async () =>
      ((await db()("dead_letters").orderBy("id").select("reason")) as { reason: string }[]).map(
        (d) => d.reason,
      );
    expect(await reasons()).toContainEqual(expect.stringMatching(/unknown writer schema .*fingerprint/));
    if (backend === "kafka") {
      // The dead-letter topic keeps the record's key (its session) with the reason beside it.
      const config = app.runtime.config;
      const kafka = new Kafka({
        clientId: "dlq-reader",
        brokers: [...config.kafkaBrokers],
        logLevel: logLevel.NOTHING,
      });
      const consumer = kafka.consumer({ groupId: `dlq-${randomUUID()}` });
      await consumer.connect();
      await consumer.subscribe({ topic: `${config.kafkaTopic}.dlq`, fromBeginning: true });
      const seen: { key: string; headers: Record<string, string> }[] = [];
      await new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push({
              key: String(message.key),
              headers: Object.fromEntries(
                Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
              ),
            });
            if (seen.some((m) => m.key === p.sessionId)) resolve();
          },
        });
      });
      await consumer.disconnect();
      expect(seen.find((m) => m.key === p.sessionId)?.headers["feedlab-reason"]).toMatch(
        /unknown writer schema/,
      );
    }

    // The fix: the schema is published where that writer would have put it.
    const config = app.runtime.config;
    await publishNextSchema(
      backend === "kafka" ? { brokers: config.kafkaBrokers, topic: config.kafkaTopic } : { db: db() },
    );
    forgetWriterSchema(NEXT_FINGERPRINT);
    const before = (await reasons()).length;
    // As `feedlab dlq redrive` does: a log opened afresh, which looks the schema up.
    const store = { db: db(), dbKind: backend === "postgres" ? "postgres" : "pglite" } as Store;
    const fresh = await openEventLog(app.runtime.config, app.runtime.log, store);
    const result = await redriveDeadLetters({
      db: db(),
      log: fresh,
      multiProcess: backend === "postgres",
    }).finally(() => fresh.close());
    expect(result.resolved).toBe(1);
    expect(result.failing.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^undecodable record/),
      expect.stringMatching(/^cannot apply/),
    ]);
    expect((await reasons()).length).toBe(before - 1);
    expect(await db()("events").where({ event_id: eventId }).first("event_type")).toEqual({
      event_type: NEXT_EVENT_TYPE,
    });
  });

  it("refuses to replay a log whose oldest records are gone, and leaves the read models as they were", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "retention");
    await deliverEvents(p, [wireEvent("PAGE_LOAD"), wireEvent("PAGE_LOAD")]);
    await settle();
    const before = await snapshot();
    if (backend === "kafka") {
      // As retention would: the start of a partition deleted.
      const config = app.runtime.config;
      const kafka = new Kafka({
        clientId: "ops",
        brokers: [...config.kafkaBrokers],
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      const [partition, head] = [...(await app.runtime.eventLog.position())].find(([, o]) => o >= 1) as [
        number,
        number,
      ];
      await admin.fetchTopicMetadata({ topics: [config.kafkaTopic] });
      await admin.deleteTopicRecords({
        topic: config.kafkaTopic,
        partitions: [{ partition, offset: String(head) }],
      });
      await admin.disconnect();
      await expect(
        replay({ db: db(), log: app.runtime.eventLog, logger: app.runtime.log, multiProcess: false }),
      ).rejects.toThrow(
        new RegExp(
          `no longer holds its oldest records \\(partition ${partition} starts at offset ${head}\\).*nothing was changed`,
        ),
      );
      expect(await snapshot()).toEqual(before);
    } else {
      // The embedded log never drops records: replay goes ahead.
      await replay({
        db: db(),
        log: app.runtime.eventLog,
        logger: app.runtime.log,
        multiProcess: backend === "postgres",
      });
      expect(await snapshot()).toEqual(before);
    }
  });
});
