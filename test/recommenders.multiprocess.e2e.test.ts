import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import type { FeedPage, Group, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, codeOf } from "./harness/app.ts";
import { createTestDatabase, type TestDatabase } from "./harness/database.ts";
import { type Joined, joinWithSession } from "./harness/events.ts";
import { createStudy, type StudyFixture } from "./harness/fixtures.ts";
import { freePort } from "./harness/ports.ts";
import { type FakeRecommender, startFakeRecommender } from "./harness/recommender-server.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const PASSWORD = "two-workers-password";

interface ApiProcess {
  readonly url: string;
  readonly child: ChildProcess;
  admin(): Promise<Client>;
  stop(): Promise<void>;
}

/** `feedlab start --role api` as a process of its own on the given database. */
async function startApi(databaseUrl: string): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, "bin/feedlab.mjs"), "start", "--role", "api"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      FEEDLAB_DEMO: "0",
      FEEDLAB_ADMIN_PASSWORD: PASSWORD,
      FEEDLAB_LOG_LEVEL: "warn",
      FEEDLAB_LOG_FORMAT: "json",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes("API reference:")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`feedlab start failed:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    admin: async () => {
      const c = new Client(url);
      const r = await c.post("/api/v1/auth/login", { username: "admin", password: PASSWORD });
      if (r.status !== 200) throw new Error(`login: ${r.status}`);
      return c;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * Polls `probe` until it returns true; fails when it never does (15 s, far past the 1 s cache
 * backstop). How soon a change shows on the other process is a benchmark's figure
 * (test/bench/change-propagation.bench.ts), not a test's limit.
 */
async function seen(probe: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error("not seen within 15 s");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("two API processes on one PostgreSQL database", () => {
  let database: TestDatabase;
  let a: ApiProcess;
  let b: ApiProcess;
  let fake: FakeRecommender;
  let adminA: Client;
  let study: StudyFixture;
  let group: Group;
  let viewerOnB: Joined;

  beforeAll(async () => {
    database = await createTestDatabase("feedlab_test_workers");
    [a, b] = await Promise.all([startApi(database.url), startApi(database.url)]);
    fake = await startFakeRecommender((call) => ({
      json: { video_ids: call.url.startsWith("/second") ? [id(2)] : [id(1)] },
    }));
    adminA = await a.admin();
    study = await createStudy(adminA, { weights: [1], videoCount: 4, status: "running" });
    group = study.groups[0] as Group;
    viewerOnB = await joinWithSession(new Client(b.url), study.experiment.id, "viewer-on-b");
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await fake?.close();
    await database?.drop();
  });

  const id = (i: number) => (study.videos[i] as Video).id;
  const feedOnB = () => viewerOnB.client.get<FeedPage>(`/feed?session_id=${viewerOnB.sessionId}`);
  const itemsOnB = async () => (await feedOnB()).body.items?.map((v) => v.id) ?? [];

  it("makes a recommender registered on one process usable on the other at once", async () => {
    const r = await adminA.post("/api/v1/admin/recommenders", {
      key: "shared-rec",
      kind: "external_http",
      label: "Shared",
      config: { url: `${fake.url}/first` },
    });
    expect(r.status).toBe(201);
    // The group is edited on B, whose registry has never seen the key.
    const adminB = await b.admin();
    const g = await adminB.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: "shared-rec", watch: "recency" },
    });
    expect(g.status).toBe(200);
    expect(await itemsOnB()).toEqual([id(1)]);
  });

  it("rebuilds the other process's cached instance after a PATCH", async () => {
    expect(await itemsOnB()).toEqual([id(1)]);
    const patched = await adminA.patch("/api/v1/admin/recommenders/shared-rec", {
      config: { url: `${fake.url}/second` },
    });
    expect(patched.status).toBe(200);
    await seen(async () => (await itemsOnB())[0] === id(2));
  });

  it("drops a deleted recommender on the other process (its group then answers 503)", async () => {
    expect((await adminA.del("/api/v1/admin/recommenders/shared-rec")).status).toBe(204);
    await seen(async () => (await feedOnB()).status === 503);
    expect(codeOf(await feedOnB())).toBe("recommender_unavailable");
  });

  it("sees a group's new algorithm and a new pool on the other process", async () => {
    expect(
      (
        await adminA.patch(`/api/v1/admin/groups/${group.id}`, {
          algorithm_config: { feed: "recency", watch: "recency" },
        })
      ).status,
    ).toBe(200);
    await seen(async () => (await feedOnB()).status === 200);
    expect(await itemsOnB()).toHaveLength(4);
    const put = await adminA.put(`/api/v1/admin/experiments/${study.experiment.id}/videos`, {
      video_ids: [id(0), id(3)],
    });
    expect(put.status).toBe(200);
    await seen(async () => (await itemsOnB()).length === 2);
    expect(new Set(await itemsOnB())).toEqual(new Set([id(0), id(3)]));
  });

  it("shows a built-in's new label on the other process", async () => {
    await adminA.patch("/api/v1/admin/recommenders/similarity", { label: "Content-based" });
    const adminB = await b.admin();
    const r = await adminB.get<{ label: string }>("/api/v1/admin/recommenders/similarity");
    expect(r.body.label).toBe("Content-based");
  });
});
