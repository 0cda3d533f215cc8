import { randomUUID } from "node:crypto";
import type { FeedPage, JoinResult } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";

/** A participant of one arm, with a session. */
interface ArmParticipant {
  readonly client: Client;
  readonly sessionId: string;
  readonly groupId: string;
}

/** The padding the test sets: far above what a built-in recommender on six videos takes. */
const MIN_MS = 800;

describe("min_response_ms pads every feed and related answer (pglite)", () => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  const participants: ArmParticipant[] = [];

  beforeAll(async () => {
    app = await startTestApp("pglite");
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
      if (participants.some((p) => p.groupId === groupId)) continue;
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

  it("answers feed and related pages of both arms sooner than the padding when min_response_ms is unset", async () => {
    const answers = await timedAnswers();
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Built-in recommenders on a small pool: far under the padding the next test sets.
    expect(answers.filter((a) => a.ms >= MIN_MS)).toEqual([]);
  });

  it("takes at least min_response_ms for every feed and related answer of every arm when it is set", async () => {
    const r = await admin.patch(`/api/v1/admin/experiments/${study.experiment.id}`, {
      min_response_ms: MIN_MS,
    });
    expect(r.status).toBe(200);
    const answers = await timedAnswers();
    expect(answers).toHaveLength(6);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.ms < MIN_MS)).toEqual([]);
  });

  it("stops padding at once when min_response_ms is cleared", async () => {
    await admin.patch(`/api/v1/admin/experiments/${study.experiment.id}`, { min_response_ms: null });
    const answers = await timedAnswers();
    expect(answers.filter((a) => a.ms >= MIN_MS)).toEqual([]);
  });
});
