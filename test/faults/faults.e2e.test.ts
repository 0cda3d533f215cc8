import { randomUUID } from "node:crypto";
import { DEFAULT_KAFKA_CLIENT, KAFKA_CLIENTS } from "@feedlab/ingest";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { Client } from "../harness/app.ts";
import { createTestDatabase, type TestDatabase } from "../harness/database.ts";
import { createStudy } from "../harness/fixtures.ts";
import { startKafka } from "../harness/kafka.ts";
import {
  NEXT_EVENT_TYPE,
  nextReleaseEvent,
  produceRaw,
  publishNextSchema,
  writtenByNextRelease,
} from "../harness/next-release.ts";
import { freePort } from "../harness/ports.ts";
import { adminClient, type FeedlabProcess, runFeedlab, startRole } from "../harness/processes.ts";

const TYPES: EventType[] = [
  "PAGE_LOAD",
  "VIDEO_PLAY",
  "VIDEO_WATCHED_1S",
  "IMPRESSION",
  "LIKE",
  "SCROLL",
  "VIDEO_ENDED",
  "THUMBNAIL_HOVER",
];
const READ_MODELS = [
  "events",
  "watched_videos",
  "video_view_counts",
  "interactions",
  "co_views",
  "session_activity",
];

interface Sender {
  client: Client;
  sessionId: string;
}

/**
 * A participant's browser as the tracking core behaves: every batch is retried (same event ids)
 * until the server acknowledges it with a 202; connection errors and 5xx mean "not acknowledged".
 */
async function sendUntilAcknowledged(
  s: Sender,
  events: unknown[],
  acknowledged: Set<string>,
  stats: { failures: number; unavailable: number },
) {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await s.client.post("/api/v1/events", { session_id: s.sessionId, events });
      if (r.status === 202) {
        for (const e of events as { event_id: string }[]) acknowledged.add(e.event_id);
        return;
      }
      if (r.status === 503) stats.unavailable++;
      else stats.failures++;
    } catch {
      stats.failures++;
    }
    await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 4))));
  }
}

function batch(videos: readonly string[], n: number) {
  return Array.from({ length: 20 }, (_, i) => {
    const type = TYPES[(n + i) % TYPES.length] as EventType;
    const fields = exampleRowFields(type);
    const video = videos[(n * 7 + i) % videos.length] as string;
    return {
      event_id: randomUUID(),
      event_type: type,
      timestamp: new Date(Date.UTC(2026, 10, 21, 10) + n * 1000 + i).toISOString(),
      payload: type === "LIKE" ? { videoId: video } : EXAMPLE_PAYLOADS[type],
      ...fields,
      ...(fields.video_id ? { video_id: video } : {}),
    };
  });
}

describe.each(KAFKA_CLIENTS)(
  "the scale-out deployment under faults (PostgreSQL + Kafka on %s, separate API and projector processes)",
  (kafkaClient) => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let apiPort: number;
    let api: FeedlabProcess | null = null;
    /** Further processes of a scenario, for diagnostics. */
    const extra: FeedlabProcess[] = [];
    let projector: FeedlabProcess | null = null;

    beforeAll(async () => {
      database = await createTestDatabase();
      apiPort = await freePort();
    });
    afterEach(async () => {
      await api?.stop();
      await projector?.stop();
      api = null;
      projector = null;
    });
    afterAll(async () => {
      await database?.drop();
    });

    /** Fresh topic per scenario; the same database (read models are compared, not accumulated). */
    async function deployment(brokers: string) {
      env = {
        DATABASE_URL: database.url,
        KAFKA_BROKERS: brokers,
        FEEDLAB_KAFKA_TOPIC: `feedlab.events.faults-${randomUUID().slice(0, 8)}`,
        FEEDLAB_KAFKA_PARTITIONS: "3",
        FEEDLAB_KAFKA_CLIENT: kafkaClient,
      };
      const migrated = runFeedlab(["migrate"], env);
      expect(migrated.status, migrated.stderr).toBe(0);
      await query(async (db) => {
        for (const t of [...READ_MODELS, "consumer_checkpoints", "dead_letters"])
          await db.query(`DELETE FROM ${t}`);
      });
      api = await startRole("api", env, apiPort);
      projector = await startRole("projector", env);
      const admin = await adminClient(api.url as string);
      const study = await createStudy(admin, { videoCount: 12, status: "running", weights: [1, 1] });
      const senders: Sender[] = [];
      const participants: {
        userId: string;
        loginId: string;
        sessionId: string;
        experimentId: string;
        groupId: string;
      }[] = [];
      for (let i = 0; i < 6; i++) {
        const client = new Client(api.url as string);
        const loginId = `fault-${randomUUID().slice(0, 6)}`;
        const joined = await client.post<{ user_id: string; group_id: string }>("/api/v1/participants/join", {
          experiment_id: study.experiment.id,
          login_id: loginId,
        });
        const sessionId = randomUUID();
        await client.post("/sessions", { session_id: sessionId });
        senders.push({ client, sessionId });
        participants.push({
          userId: joined.body.user_id,
          loginId,
          sessionId,
          experimentId: study.experiment.id,
          groupId: joined.body.group_id,
        });
      }
      return { admin, videos: study.videos.map((v) => v.external_id), senders, participants };
    }

    async function intake(
      senders: Sender[],
      videos: string[],
      batches: number,
      onBatch: (n: number) => Promise<void> | void,
    ) {
      const acknowledged = new Set<string>();
      const stats = { failures: 0, unavailable: 0 };
      let n = 0;
      await Promise.all(
        senders.map(async (s) => {
          while (n < batches) {
            const mine = n++;
            await onBatch(mine);
            await sendUntilAcknowledged(s, batch(videos, mine), acknowledged, stats);
          }
        }),
      );
      return { acknowledged, stats };
    }

    async function settled(admin: Client) {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const m = await admin.get("/metrics");
        const lag = Number(/^feedlab_projector_lag_records (\d+)/m.exec(m.text)?.[1] ?? Number.NaN);
        if (lag === 0) return;
        if (Date.now() > deadline) {
          const checkpoints = await query(
            async (db) => (await db.query("SELECT partition, log_offset FROM consumer_checkpoints")).rows,
          );
          throw new Error(
            `projection lag stayed at ${lag}; checkpoints ${JSON.stringify(checkpoints)}\nprojector: ${projector?.output().slice(-1500)}\nothers: ${extra.map((p) => p.output().slice(-1500)).join("\n")}`,
          );
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    /** Runs queries on a connection of the test's own, closed afterwards whatever happens. */
    async function query<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
      const db = new pg.Client({ connectionString: database.url });
      db.on("error", () => {});
      await db.connect();
      try {
        return await fn(db);
      } finally {
        await db.end();
      }
    }

    async function snapshot() {
      return query(async (db) => {
        const out: Record<string, string[]> = {};
        for (const t of READ_MODELS) {
          const { rows } = await db.query(`SELECT * FROM ${t}`);
          out[t] = rows.map((r: Record<string, unknown>) => JSON.stringify(r, Object.keys(r).sort())).sort();
        }
        return out;
      });
    }

    /** Every acknowledged event is stored exactly once, and the read models equal a replay of the log. */
    async function expectExactlyOnce(acknowledged: Set<string>) {
      const rows = await query(async (db) => (await db.query("SELECT event_id FROM events")).rows);
      const stored = new Set(rows.map((r: { event_id: string }) => r.event_id));
      expect([...acknowledged].filter((id) => !stored.has(id))).toEqual([]);
      // Anything stored beyond the acknowledged was sent in a batch whose answer was lost; here every batch was retried until acknowledged.
      expect(stored.size).toBe(acknowledged.size);
      const live = await snapshot();
      await projector?.stop();
      projector = null;
      const replayed = runFeedlab(["replay"], env);
      expect(replayed.status, replayed.stderr).toBe(0);
      expect(await snapshot()).toEqual(live);
    }

    it("loses and doubles nothing when one of two projectors is killed with SIGKILL mid-stream and restarted", {
      timeout: 300_000,
    }, async () => {
      const { admin, videos, senders } = await deployment(inject("kafkaBrokers"));
      let second: FeedlabProcess | null = null;
      try {
        const { acknowledged } = await intake(senders, videos, 240, async (n) => {
          // Two projectors share the partitions (one consumer group); then the first dies mid-stream.
          if (n === 20) {
            second = await startRole("projector", env);
            extra.push(second);
          }
          if (n === 80) await projector?.kill9();
          if (n === 160) projector = await startRole("projector", env);
        });
        await settled(admin);
        await (second as FeedlabProcess | null)?.stop();
        second = null;
        await expectExactlyOnce(acknowledged);
      } finally {
        await (second as FeedlabProcess | null)?.stop();
      }
    });

    it("loses and doubles nothing when the API process is killed with SIGKILL during intake", async () => {
      const { admin, videos, senders } = await deployment(inject("kafkaBrokers"));
      let restarted: Promise<void> | null = null;
      const { acknowledged, stats } = await intake(senders, videos, 240, async (n) => {
        if (n === 100) {
          await api?.kill9();
          restarted = (async () => {
            api = await startRole("api", env, apiPort);
          })();
        }
      });
      await restarted;
      expect(stats.failures).toBeGreaterThan(0);
      await settled(await adminClient(api?.url as string));
      await expectExactlyOnce(acknowledged);
      void admin;
    });

    // The rolling upgrade runs on the default client only: what it checks (a newer writer's schema and
    // records read by older processes) lives above the client, and a second run would add half a
    // minute to the suite. Each client reads a newer release's records in event-log.contract.int.test.ts.
    it.runIf(kafkaClient === DEFAULT_KAFKA_CLIENT)(
      "loses nothing in a rolling upgrade: processes restarted one by one while a newer release's writer adds a field and an event type",
      {
        timeout: 300_000,
      },
      async () => {
        const { videos, senders, participants } = await deployment(inject("kafkaBrokers"));
        const brokers = inject("kafkaBrokers").split(",");
        const topic = env.FEEDLAB_KAFKA_TOPIC as string;
        const newer: string[] = [];
        /** What the next release's API writes: its schema published first, then its records. */
        const writeAsNextRelease = async (count: number) => {
          await publishNextSchema({ brokers, topic });
          const messages = Array.from({ length: count }, (_, i) => {
            const who = participants[i % participants.length] as (typeof participants)[number];
            const id = randomUUID();
            newer.push(id);
            const value = writtenByNextRelease(
              nextReleaseEvent(who, {
                event_id: id,
                event_type: i % 2 === 0 ? "VIDEO_PLAY" : NEXT_EVENT_TYPE,
                video_id: videos[i % videos.length] as string,
                payload: { currentTime: 0, duration: 30 },
              }),
            );
            return { key: who.sessionId, value, headers: { "feedlab-event-id": id } };
          });
          await produceRaw(brokers, topic, messages);
        };
        let rolling: Promise<void> = Promise.resolve();
        const { acknowledged } = await intake(senders, videos, 160, async (n) => {
          // The API restarts (stop, start on the same port), then the projector; meanwhile the new
          // release writes, and the old projector reads its records.
          if (n === 40) {
            rolling = (async () => {
              await api?.stop();
              api = await startRole("api", env, apiPort);
            })();
          }
          if (n === 80) await writeAsNextRelease(40);
          if (n === 100) {
            await rolling;
            await projector?.stop();
            projector = await startRole("projector", env);
          }
        });
        await rolling;
        await settled(await adminClient(api?.url as string));
        const dead = await query(async (db) => (await db.query("SELECT reason FROM dead_letters")).rows);
        expect(dead).toEqual([]);
        for (const id of newer) acknowledged.add(id);
        await expectExactlyOnce(acknowledged);
        const types = await query(
          async (db) =>
            (await db.query("SELECT count(*)::int AS n FROM events WHERE event_type = $1", [NEXT_EVENT_TYPE]))
              .rows[0] as {
              n: number;
            },
        );
        expect(types.n).toBe(20);
      },
    );

    it("answers 503 while the broker is down and loses and doubles nothing once it is back", {
      // A broker of its own to start, then a whole deployment: about 40 s alone, three times that when
      // the machine's two cores are shared with other work.
      timeout: 300_000,
    }, async () => {
      // A broker of this scenario's own, so stopping it touches no other test.
      const broker = await startKafka();
      try {
        const { admin, videos, senders } = await deployment(broker.brokers);
        let back: Promise<void> | null = null;
        const { acknowledged, stats } = await intake(senders, videos, 200, async (n) => {
          if (n === 60) {
            broker.pause();
            back = new Promise((resolve) =>
              setTimeout(() => {
                broker.resume();
                resolve();
              }, 8000),
            );
          }
        });
        await back;
        expect(stats.unavailable).toBeGreaterThan(0);
        await settled(admin);
        await expectExactlyOnce(acknowledged);
      } finally {
        await api?.stop();
        await projector?.stop();
        api = null;
        projector = null;
        await broker.stop();
      }
    });
  },
);
