import { randomUUID } from "node:crypto";
import type { FeedPage, JoinResult } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { createFeedService } from "./feed.service.ts";

/** A participant of one arm, with a session. */
interface ArmParticipant {
  readonly client: Client;
  readonly sessionId: string;
  readonly groupId: string;
}

/** The padding the test sets. */
const MIN_MS = 800;

// How fast an unpadded answer is belongs to the benchmarks (feed.bench.ts), not here: these tests
// check what the padding does by the waits it asks for, and that padded answers take at least as long.
describe.each(BACKENDS)("min_response_ms pads every feed and related answer (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  const participants: ArmParticipant[] = [];

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 6, status: "running", weights: [1, 1] });
    // Two arms on different built-in recommenders.
    const [a, b] = study.groups;
    await admin.patch(`/api/v1/admin/groups/${a?.id}`, {
      algorithm_config: { feed: "popularity", watch: "similarity" },
    });
    await admin.patch(`/api/v1/admin/groups/${b?.id}`, {
      algorithm_config: { feed: "random", watch: "recency" },
    });
    // Join until each arm has a participant (assignment is balanced, so a few joins do).
    for (let i = 0; i < 20 && new Set(participants.map((p) => p.groupId)).size < 2; i++) {
      const client = app.client();
      const join = await client.post<JoinResult>("/api/v1/participants/join", {
        experiment_id: study.experiment.id,
        login_id: `viewer-${i}`,
      });
      const groupId = join.body.group_id;
      if (groupId === null || participants.some((p) => p.groupId === groupId)) continue;
      const sessionId = randomUUID();
      expect((await client.post("/sessions", { session_id: sessionId })).status).toBe(201);
      participants.push({ client, sessionId, groupId });
    }
    expect(new Set(participants.map((p) => p.groupId)).size).toBe(2);
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Each arm's feed and related answers, each with how long it took (ms). */
  async function timedAnswers(): Promise<{ path: string; status: number; ms: number }[]> {
    const out: { path: string; status: number; ms: number }[] = [];
    const current = study.videos[0]?.id;
    for (const p of participants) {
      for (const path of [
        `/feed?session_id=${p.sessionId}&limit=3`,
        `/feed?session_id=${p.sessionId}&limit=3&offset=3`,
        `/feed/${current}/related?session_id=${p.sessionId}&limit=3`,
      ]) {
        const started = performance.now();
        const r = await p.client.get<FeedPage>(path);
        out.push({ path, status: r.status, ms: performance.now() - started });
      }
    }
    return out;
  }

  /**
   * The waits a feed service on the app's database asks for, by a clock of its own: what the routes'
   * padding decides, without timing a request. `timingCacheMs` is long, so only `forgetTimings`
   * (which the app calls on a study change) lets it see a change.
   */
  function recordedPadding() {
    const waits: number[] = [];
    const feed = createFeedService({
      db: app.runtime.db,
      dispatcher: app.runtime.recommenders.dispatcher,
      sessions: app.runtime.services.sessions,
      bus: app.runtime.changes,
      timingCacheMs: 60_000,
      sleep: async (ms) => void waits.push(ms),
    });
    return {
      feed,
      async waitsOfOnePage(): Promise<number[]> {
        waits.length = 0;
        await feed.pad(study.experiment.id, performance.now());
        return [...waits];
      },
    };
  }

  it("answers feed and related pages of both arms and asks for no wait when min_response_ms is unset", async () => {
    const answers = await timedAnswers();
    expect(answers).toHaveLength(6);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await recordedPadding().waitsOfOnePage()).toEqual([]);
  });

  it("takes at least min_response_ms for every feed and related answer of every arm when it is set", async () => {
    const r = await admin.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      min_response_ms: MIN_MS,
    });
    expect(r.status).toBe(200);
    const answers = await timedAnswers();
    expect(answers).toHaveLength(6);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // A lower bound only: a loaded machine makes answers slower, never faster.
    expect(answers.filter((a) => a.ms < MIN_MS)).toEqual([]);
    const [wait, ...more] = await recordedPadding().waitsOfOnePage();
    expect(more).toEqual([]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(MIN_MS);
  });

  it("stops padding when min_response_ms is cleared, as soon as the service forgets the old value", async () => {
    const padding = recordedPadding();
    expect(await padding.waitsOfOnePage()).toHaveLength(1);
    const appForgets = vi.spyOn(app.runtime.services.feed, "forgetTimings");
    await admin.patch(`/api/v1/admin/experiments/${study.experiment.id}`, { min_response_ms: null });
    // The app's own feed service forgets at once (its next page reads the cleared value).
    expect(appForgets).toHaveBeenCalled();
    appForgets.mockRestore();
    // The remembered value still pads (so the next step shows forgetting, not a cache that never held it).
    expect(await padding.waitsOfOnePage()).toHaveLength(1);
    padding.feed.forgetTimings();
    expect(await padding.waitsOfOnePage()).toEqual([]);
    const answers = await timedAnswers();
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });
});
