import { randomUUID } from "node:crypto";
import type { FeedPage, Group, ModelRun, Video } from "@feedlab/schemas";
import {
  DEFAULT_TRAINING_CONFIG,
  executeRun,
  INTERRUPTED,
  insertRunningRun,
  type Trainer,
  type TrainerOptions,
} from "@feedlab/trainer";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import {
  deliverEvents,
  type Joined,
  joinWithSession,
  sendEvents,
  wireEvent,
} from "../../../test/harness/events.ts";
import { createAppTrainer } from "./trainer.ts";

const INTERVAL_MS = 600_000;
let serial = 0;

describe.each(BACKENDS)("learned model training (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  /** The trainer's clock: starts now, moved by the tests. */
  let clock = Date.now();
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** A trainer of this app that always leads, on the test clock (started only by calling tick()). */
  const trainerOf = (overrides: Partial<TrainerOptions> = {}): Trainer =>
    createAppTrainer(
      app.runtime,
      { isLeader: () => true },
      {
        now: () => new Date(clock),
        intervalMs: INTERVAL_MS,
        logger: pino({ level: "silent" }),
        ...overrides,
      },
    );

  /** Waits until the projector has applied everything appended so far. */
  const settle = async () => {
    const head = await app.runtime.eventLog.position();
    expect(await app.runtime.progress.waitFor(head, 10_000)).toBe(true);
  };

  interface Study {
    experimentId: string;
    group: Group;
    videos: Video[];
    v: (name: string) => Video;
    /** Short names of a page's videos. */
    names: (page: FeedPage) => string[];
  }

  /**
   * A running experiment whose one group serves `algorithm` on both pages, with two clusters of six
   * videos (a0..a5 about bread, b0..b5 about trains; the b videos are newer) and, optionally, more.
   */
  async function study(
    algorithm = "learned_model",
    extra: { name: string; title: string; tags: string[] }[] = [],
  ): Promise<Study> {
    const tag = `t${++serial}${backend}`;
    const exp = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: tag });
    const group = await admin.post<Group>(`/api/v1/admin/experiments/${exp.body.id}/groups`, {
      name: "Arm",
      algorithm_config: { feed: algorithm, watch: algorithm },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    expect(group.status).toBe(201);
    const specs = [
      ...[0, 1, 2, 3, 4, 5].map((i) => ({
        name: `a${i}`,
        title: `Bread baking ${i}`,
        tags: ["bread"],
        day: i,
      })),
      ...[0, 1, 2, 3, 4, 5].map((i) => ({
        name: `b${i}`,
        title: `Train journey ${i}`,
        tags: ["train"],
        day: 10 + i,
      })),
      ...extra.map((x) => ({ ...x, day: 20 })),
    ];
    const created = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: specs.map((x) => ({
        external_id: `${tag}-${x.name}`,
        url: `https://cdn.example.org/${tag}/${x.name}.mp4`,
        title: x.title,
        tags: x.tags,
        published_at: new Date(Date.UTC(2026, 0, 1 + x.day)).toISOString(),
      })),
    });
    expect(created.status).toBe(201);
    await admin.put(`/api/v1/admin/experiments/${exp.body.id}/videos`, {
      video_ids: created.body.videos.map((v) => v.id),
    });
    await admin.patch(`/api/v1/admin/experiments/${exp.body.id}`, { status: "running" });
    const byName = new Map(specs.map((x, i) => [x.name, created.body.videos[i] as Video]));
    const nameOf = new Map(specs.map((x, i) => [(created.body.videos[i] as Video).id, x.name]));
    return {
      experimentId: exp.body.id,
      group: group.body,
      videos: created.body.videos,
      v: (name) => byName.get(name) as Video,
      names: (page) => page.items.map((item) => nameOf.get(item.id) ?? "?"),
    };
  }

  /** Participants who watch one cluster each: `perCluster` per cluster, four videos each. */
  async function watchClusters(s: Study, perCluster = 6): Promise<void> {
    for (const cluster of ["a", "b"]) {
      for (let p = 0; p < perCluster; p++) {
        const viewer = await joinWithSession(
          app.client(),
          s.experimentId,
          `${cluster}-fan-${p}-${randomUUID()}`,
        );
        const picks = [0, 1, 2, 3, 4, 5].filter((i) => (i + p) % 3 !== 0).slice(0, 4);
        await watch(
          viewer,
          s,
          picks.map((i) => `${cluster}${i}`),
        );
      }
    }
  }

  /** VIDEO_WATCHED_1S of each video, with a LIKE of the first one. */
  async function watch(p: Joined, s: Study, names: string[]): Promise<string> {
    const events = names.flatMap((name, i) => [
      wireEvent("VIDEO_WATCHED_1S", { video_id: s.v(name).external_id }),
      ...(i === 0
        ? [
            wireEvent("LIKE", {
              video_id: s.v(name).external_id,
              payload: { videoId: s.v(name).external_id },
            }),
          ]
        : []),
    ]);
    const sent = await sendEvents(p, events);
    expect(sent.status).toBe(202);
    expect(sent.body.rejected).toEqual([]);
    return sent.body.position;
  }

  async function feed(p: Joined, related?: Video): Promise<FeedPage> {
    const path = related ? `/feed/${related.id}/related` : "/feed";
    const r = await p.client.get<FeedPage>(`${path}?session_id=${p.sessionId}&limit=20`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  }

  const runsOf = async (experimentId: string) => {
    const r = await admin.get<ModelRun[]>(`/api/v1/admin/experiments/${experimentId}/models`);
    expect(r.status).toBe(200);
    return r.body;
  };

  const runOf = async (experimentId: string, id: string | undefined) =>
    (await runsOf(experimentId)).find((r) => r.id === id);

  /** Queues a manual run through the API; answers its id. */
  const requestRun = async (experimentId: string) => {
    const r = await admin.post<{ run_id: string }>(`/api/v1/admin/experiments/${experimentId}/models/train`);
    expect(r.status).toBe(202);
    return r.body.run_id;
  };

  const cacheRunIds = async (experimentId: string) =>
    (
      await app.runtime
        .db("recommendation_cache")
        .where({ experiment_id: experimentId })
        .distinct("model_run_id")
    ).map((r: { model_run_id: string }) => r.model_run_id);

  describe("schedule and freshness", () => {
    it("trains on the schedule, then records a scheduled run with nothing new as skipped and keeps the model", async () => {
      const s = await study();
      await watchClusters(s);
      await settle();
      const trainer = trainerOf();
      clock += INTERVAL_MS;
      await trainer.tick();
      const [first] = await runsOf(s.experimentId);
      expect(first).toMatchObject({
        status: "succeeded",
        trigger: "schedule",
        interactions: 48,
        users: 12,
        videos: 12,
      });
      expect(first?.metrics?.recall_at_10).toEqual(expect.any(Number));
      expect(await cacheRunIds(s.experimentId)).toEqual([first?.id]);

      // Given nothing new, when the interval passes, then the scheduled run is skipped and trains nothing.
      clock += INTERVAL_MS;
      await trainer.tick();
      const [skipped, ...rest] = await runsOf(s.experimentId);
      expect(rest.map((r) => r.id)).toEqual([first?.id]);
      expect(skipped).toMatchObject({ status: "skipped", trigger: "schedule", metrics: null });
      expect(skipped?.skipped_reason).toMatch(
        /No new VIDEO_WATCHED_1S, LIKE or VIDEO_ENDED since the last model/,
      );
      expect(skipped?.watermark).toBe(first?.watermark);
      expect(await cacheRunIds(s.experimentId)).toEqual([first?.id]);

      // Given still nothing new, the next skip replaces the previous one: one row says why, not one per interval.
      clock += INTERVAL_MS;
      await trainer.tick();
      const [skippedAgain, ...older] = await runsOf(s.experimentId);
      expect(skippedAgain).toMatchObject({ status: "skipped", trigger: "schedule" });
      expect(skippedAgain?.id).not.toBe(skipped?.id);
      expect(older.map((r) => r.id)).toEqual([first?.id]);

      // Given a new LIKE, the next scheduled run trains again.
      const fan = await joinWithSession(app.client(), s.experimentId, `late-${randomUUID()}`);
      await watch(fan, s, ["a0"]);
      await settle();
      clock += INTERVAL_MS;
      await trainer.tick();
      const [third] = await runsOf(s.experimentId);
      expect(third).toMatchObject({ status: "succeeded", trigger: "schedule", interactions: 49, users: 13 });
      expect(await cacheRunIds(s.experimentId)).toEqual([third?.id]);
    });

    it("waits for the interval before an experiment's next scheduled run, and keeps the rhythm after a restart", async () => {
      const s = await study();
      await watchClusters(s, 1);
      await settle();
      clock += INTERVAL_MS;
      await trainerOf().tick();
      expect(await runsOf(s.experimentId)).toHaveLength(1);
      clock += INTERVAL_MS / 2;
      // A new trainer (a restart, or another process taking over) reads the last run from the database.
      await trainerOf().tick();
      expect(await runsOf(s.experimentId)).toHaveLength(1);
      clock += INTERVAL_MS / 2;
      await trainerOf().tick();
      expect(await runsOf(s.experimentId)).toHaveLength(2);
    });

    it("schedules only running experiments with a group that serves learned_model", async () => {
      const other = await study("popularity");
      const paused = await study();
      await admin.patch(`/api/v1/admin/experiments/${paused.experimentId}`, { status: "paused" });
      clock += INTERVAL_MS;
      await trainerOf().tick();
      expect(await runsOf(other.experimentId)).toEqual([]);
      expect(await runsOf(paused.experimentId)).toEqual([]);
    });

    it("runs nothing while another process leads, and fails the runs a previous leader left running", async () => {
      const s = await study();
      const r = await admin.post<{ run_id: string }>(
        `/api/v1/admin/experiments/${s.experimentId}/models/train`,
      );
      const orphan = { id: randomUUID(), experimentId: s.experimentId, trigger: "schedule" as const };
      await insertRunningRun(app.runtime.db, orphan, new Date(clock));
      await createAppTrainer(app.runtime, { isLeader: () => false }, { now: () => new Date(clock) }).tick();
      let runs = await runsOf(s.experimentId);
      expect(runs.find((x) => x.id === r.body.run_id)?.status).toBe("queued");
      expect(runs.find((x) => x.id === orphan.id)?.status).toBe("running");
      await trainerOf().tick();
      runs = await runsOf(s.experimentId);
      expect(runs.find((x) => x.id === orphan.id)).toMatchObject({ status: "failed", error: INTERRUPTED });
      expect(runs.find((x) => x.id === r.body.run_id)?.status).toBe("skipped");
    });
  });

  describe("POST /api/v1/admin/experiments/{id}/models/train and GET .../models", () => {
    it("answers 202 with a queued run that the trainer runs even when nothing changed, listed newest first", async () => {
      const s = await study();
      await watchClusters(s, 2);
      await settle();
      const first = await admin.post<{ run_id: string }>(
        `/api/v1/admin/experiments/${s.experimentId}/models/train`,
      );
      expect(first.status).toBe(202);
      expect(first.body.run_id).toMatch(/^[0-9a-f-]{36}$/);
      // While it waits, asking again answers the same run.
      const again = await admin.post<{ run_id: string }>(
        `/api/v1/admin/experiments/${s.experimentId}/models/train`,
      );
      expect(again.body.run_id).toBe(first.body.run_id);
      expect(await runOf(s.experimentId, first.body.run_id)).toMatchObject({
        status: "queued",
        trigger: "manual",
        started_at: null,
        metrics: null,
      });
      await trainerOf().tick();
      // Nothing changed since, and a manual run still trains.
      const second = await admin.post<{ run_id: string }>(
        `/api/v1/admin/experiments/${s.experimentId}/models/train`,
      );
      expect(second.body.run_id).not.toBe(first.body.run_id);
      await trainerOf().tick();
      // (The same passes also ran the experiment's first scheduled run.)
      const runs = (await runsOf(s.experimentId)).filter((r) => r.trigger === "manual");
      expect(runs.map((r) => [r.id, r.status])).toEqual([
        [second.body.run_id, "succeeded"],
        [first.body.run_id, "succeeded"],
      ]);
      const run = runs[0] as ModelRun;
      expect(run).toMatchObject({
        trigger: "manual",
        interactions: 16,
        users: 4,
        videos: 12,
        skipped_reason: null,
        error: null,
      });
      expect(Date.parse(run.finished_at ?? "")).toBeGreaterThanOrEqual(Date.parse(run.started_at ?? ""));
      expect(run.metrics).toMatchObject({
        factors: 64,
        iterations: 15,
        test_users: 4,
        recommendations: expect.any(Number),
        similarities: expect.any(Number),
      });
      for (const key of [
        "recall_at_10",
        "ndcg_at_10",
        "baseline_recall_at_10",
        "baseline_ndcg_at_10",
      ] as const) {
        expect(run.metrics?.[key]).toBeGreaterThanOrEqual(0);
        expect(run.metrics?.[key]).toBeLessThanOrEqual(1);
      }
      for (const step of [
        "freshness",
        "extract",
        "split",
        "train_evaluation_model",
        "evaluate",
        "train",
        "recommend",
        "similarity",
        "write",
        "total",
      ]) {
        expect(run.metrics?.timings_ms[step], step).toEqual(expect.any(Number));
      }
    });

    it("records a run of an experiment without interactions as skipped, saying why", async () => {
      const s = await study();
      const id = await requestRun(s.experimentId);
      await trainerOf().tick();
      const run = await runOf(s.experimentId, id);
      expect(run).toMatchObject({ status: "skipped", trigger: "manual", interactions: 0 });
      expect(run?.skipped_reason).toMatch(/No interactions yet/);
    });

    it("answers 404 for an unknown experiment and 401 without the admin cookie", async () => {
      const unknown = randomUUID();
      const post = await admin.post(`/api/v1/admin/experiments/${unknown}/models/train`);
      expect([post.status, codeOf(post)]).toEqual([404, "not_found"]);
      const get = await admin.get(`/api/v1/admin/experiments/${unknown}/models`);
      expect([get.status, codeOf(get)]).toEqual([404, "not_found"]);
      const s = await study();
      expect(
        (await app.client().post(`/api/v1/admin/experiments/${s.experimentId}/models/train`)).status,
      ).toBe(401);
      expect((await app.client().get(`/api/v1/admin/experiments/${s.experimentId}/models`)).status).toBe(401);
    });
  });

  describe("serving", () => {
    it("keeps the previous model when a run fails while writing its output (one transaction)", async () => {
      const s = await study();
      await watchClusters(s, 2);
      await settle();
      await requestRun(s.experimentId);
      await trainerOf().tick();
      const serving = await cacheRunIds(s.experimentId);
      expect(serving).toHaveLength(1);
      const before = await app.runtime
        .db("recommendation_cache")
        .where({ experiment_id: s.experimentId })
        .count({ n: "*" });
      // A trigger makes the second half of the write fail, after the old rows were deleted.
      const fn = `fail_similarity_${serial}`;
      await app.runtime.db.raw(
        `create function ${fn}() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`,
      );
      await app.runtime.db.raw(
        `create trigger ${fn} before insert on item_similarity for each row execute function ${fn}()`,
      );
      let id: string;
      try {
        id = await requestRun(s.experimentId);
        await trainerOf().tick();
      } finally {
        await app.runtime.db.raw(`drop trigger ${fn} on item_similarity`);
        await app.runtime.db.raw(`drop function ${fn}()`);
      }
      const failed = await runOf(s.experimentId, id);
      expect(failed).toMatchObject({ status: "failed", metrics: null });
      expect(failed?.error).toMatch(/disk full/);
      expect(await cacheRunIds(s.experimentId)).toEqual(serving);
      expect(
        await app.runtime
          .db("recommendation_cache")
          .where({ experiment_id: s.experimentId })
          .count({ n: "*" }),
      ).toEqual(before);
    });

    // PostgreSQL only: PGlite has one connection, so no reader can look between the delete and the
    // commit at all there. The test above (a failed write keeps the old rows) covers both databases.
    it.runIf(backend === "postgres")(
      "serves the previous model while a run writes, and the new one once it commits",
      async () => {
        const s = await study();
        await watchClusters(s, 2);
        await settle();
        await requestRun(s.experimentId);
        await trainerOf().tick();
        const serving = await cacheRunIds(s.experimentId);
        expect(serving).toHaveLength(1);
        const reader = new pg.Client({ connectionString: app.runtime.config.databaseUrl ?? "" });
        const blocker = new pg.Client({ connectionString: app.runtime.config.databaseUrl ?? "" });
        await reader.connect();
        await blocker.connect();
        try {
          // Hold the write halfway: the new run deletes and rewrites recommendation_cache, then waits
          // on item_similarity, which this transaction keeps locked against writes.
          await blocker.query("begin");
          await blocker.query("lock table item_similarity in share mode");
          const id = await requestRun(s.experimentId);
          const running = trainerOf().tick();
          const deadline = Date.now() + 20_000;
          for (;;) {
            const { rows } = await reader.query(
              "select count(*)::int as n from pg_locks where relation = 'item_similarity'::regclass and not granted",
            );
            if ((rows[0]?.n ?? 0) > 0) break;
            if (Date.now() > deadline) throw new Error("the run never reached the write");
            await new Promise((r) => setTimeout(r, 20));
          }
          const during = await reader.query(
            "select distinct model_run_id from recommendation_cache where experiment_id = $1",
            [s.experimentId],
          );
          expect(during.rows.map((r) => r.model_run_id)).toEqual(serving);
          await blocker.query("commit");
          await running;
          expect((await runOf(s.experimentId, id))?.status).toBe("succeeded");
          expect(await cacheRunIds(s.experimentId)).toEqual([id]);
        } finally {
          await blocker.query("rollback").catch(() => {});
          await reader.end();
          await blocker.end();
        }
      },
    );

    it("records a run interrupted by the trainer stopping as failed", async () => {
      const s = await study();
      await watchClusters(s, 1);
      await settle();
      const run = { id: randomUUID(), experimentId: s.experimentId, trigger: "manual" as const };
      await insertRunningRun(app.runtime.db, run, new Date(clock));
      const controller = new AbortController();
      controller.abort(new Error("the trainer stopped"));
      const status = await executeRun(
        {
          db: app.runtime.db,
          logger: pino({ level: "silent" }),
          now: () => new Date(clock),
          config: DEFAULT_TRAINING_CONFIG,
        },
        run,
        controller.signal,
      );
      expect(status).toBe("failed");
      expect((await runsOf(s.experimentId))[0]).toMatchObject({ status: "failed", error: INTERRUPTED });
    });
  });

  describe("the learned arm through GET /feed", () => {
    it("changes a participant's feed to their cluster's videos after their events and a scheduled run", async () => {
      const s = await study();
      await watchClusters(s);
      const p = await joinWithSession(app.client(), s.experimentId, `learner-${randomUUID()}`);
      const position = await watch(p, s, ["a0", "a1"]);
      const fresh = await p.client.get<FeedPage>(`/feed?session_id=${p.sessionId}&after=${position}`);
      // No model yet: the fallback, newest first (no plays), so the train videos lead.
      expect(s.names(fresh.body).slice(0, 4)).toEqual(["b5", "b4", "b3", "b2"]);
      await settle();
      clock += INTERVAL_MS;
      await trainerOf().tick();
      expect((await runsOf(s.experimentId))[0]?.status).toBe("succeeded");
      // The model: the bread videos p has not watched first.
      const learned = s.names(await feed(p));
      expect(new Set(learned.slice(0, 4))).toEqual(new Set(["a2", "a3", "a4", "a5"]));
      expect(learned).toHaveLength(10);
      expect(learned).not.toContain("a0");
      // Watch page: the learned neighbours of a bread video are bread videos.
      const related = s.names(await feed(p, s.v("a2")));
      expect(new Set(related.slice(0, 3))).toEqual(new Set(["a3", "a4", "a5"]));
    });

    it("puts same-taste videos first on the watch page of a small study, even where metadata points elsewhere (planted clusters)", async () => {
      // Two taste clusters of 20 videos. Metadata misleads: video i of each cluster shares its title
      // topic and tag with video i of the other. 24 participants, 12 per cluster, each watching 8 of
      // their cluster's videos.
      const tag = `planted${++serial}${backend}`;
      const exp = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: tag });
      await admin.post(`/api/v1/admin/experiments/${exp.body.id}/groups`, {
        name: "Arm",
        algorithm_config: { feed: "learned_model", watch: "learned_model" },
        ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
      });
      const specs = ["a", "b"].flatMap((c) =>
        Array.from({ length: 20 }, (_, i) => ({
          name: `${c}${i}`,
          title: `Topic ${i} explained`,
          tags: [`topic${i}`],
        })),
      );
      const created = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
        videos: specs.map((x) => ({
          external_id: `${tag}-${x.name}`,
          url: `https://cdn.example.org/${tag}/${x.name}.mp4`,
          title: x.title,
          tags: x.tags,
        })),
      });
      await admin.put(`/api/v1/admin/experiments/${exp.body.id}/videos`, {
        video_ids: created.body.videos.map((v) => v.id),
      });
      await admin.patch(`/api/v1/admin/experiments/${exp.body.id}`, { status: "running" });
      const video = (name: string) => created.body.videos[specs.findIndex((x) => x.name === name)] as Video;
      const clusterOf = new Map(created.body.videos.map((v, i) => [v.id, specs[i]?.name[0]]));
      for (const c of ["a", "b"])
        for (let p = 0; p < 12; p++) {
          const viewer = await joinWithSession(app.client(), exp.body.id, `${c}-${p}-${randomUUID()}`);
          const picks = Array.from({ length: 8 }, (_, k) => `${c}${(p * 5 + k * 2) % 20}`);
          const sent = await sendEvents(
            viewer,
            picks.map((name) => wireEvent("VIDEO_WATCHED_1S", { video_id: video(name).external_id })),
          );
          expect(sent.body.rejected).toEqual([]);
        }
      await settle();
      const id = await requestRun(exp.body.id);
      await trainerOf().tick();
      expect((await runOf(exp.body.id, id))?.status).toBe("succeeded");
      const newcomer = await joinWithSession(app.client(), exp.body.id, `newcomer-${randomUUID()}`);
      const sameInTop5: number[] = [];
      for (const name of ["a0", "a7", "a13", "b2", "b11", "b18"]) {
        const r = await newcomer.client.get<FeedPage>(
          `/feed/${video(name).id}/related?session_id=${newcomer.sessionId}&limit=5`,
        );
        sameInTop5.push(r.body.items.filter((v) => clusterOf.get(v.id) === name[0]).length);
      }
      // Every related list leads with the video's own cluster: at least 4 of 5, 5 of 5 on average.
      expect(Math.min(...sameInTop5), String(sameInTop5)).toBeGreaterThanOrEqual(4);
      expect(
        sameInTop5.reduce((a, b) => a + b, 0) / sameInTop5.length,
        String(sameInTop5),
      ).toBeGreaterThanOrEqual(4.5);
    });

    it("falls back to popularity then recency for a participant who joined after the run, and on the watch page to popularity for a video without neighbours", async () => {
      const s = await study("learned_model", [{ name: "lonely", title: "Qzxv", tags: ["qzxv"] }]);
      await watchClusters(s, 2);
      const player = await joinWithSession(app.client(), s.experimentId, `player-${randomUUID()}`);
      await deliverEvents(player, [
        wireEvent("VIDEO_PLAY", { video_id: s.v("a3").external_id }),
        wireEvent("VIDEO_PLAY", { video_id: s.v("a3").external_id }),
        wireEvent("VIDEO_PLAY", { video_id: s.v("b0").external_id }),
      ]);
      await settle();
      const id = await requestRun(s.experimentId);
      await trainerOf().tick();
      expect((await runOf(s.experimentId, id))?.status).toBe("succeeded");
      const newcomer = await joinWithSession(app.client(), s.experimentId, `newcomer-${randomUUID()}`);
      // No ranking for them: the played videos by plays, then the rest newest first.
      expect(s.names(await feed(newcomer))).toEqual([
        "a3",
        "b0",
        "lonely",
        "b5",
        "b4",
        "b3",
        "b2",
        "b1",
        "a5",
        "a4",
        "a2",
        "a1",
        "a0",
      ]);
      // The lonely video has no learned neighbours (no interactions, nothing in common): popularity.
      expect(s.names(await feed(newcomer, s.v("lonely"))).slice(0, 3)).toEqual(["a3", "b0", "b5"]);
    });
  });
});
