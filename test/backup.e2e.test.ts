import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Video } from "@feedlab/schemas";
import { openDb } from "@feedlab/sql";
import { afterAll, describe, expect, it } from "vitest";
import { BACKENDS, Client, createTestStorage, type TestStorage } from "./harness/app.ts";
import { wireEvent } from "./harness/events.ts";
import { createStudy } from "./harness/fixtures.ts";
import {
  adminClient,
  type FeedlabProcess,
  runFeedlab,
  runFeedlabAsync,
  startRole,
} from "./harness/processes.ts";

/**
 * The backup test: `feedlab backup` while the service takes events, `feedlab restore` into an
 * empty data folder or database, and every event acknowledged before the backup started is there.
 */
describe.each(BACKENDS)("backup and restore under load (%s)", (backend) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  let service: FeedlabProcess | null = null;
  afterAll(async () => {
    await service?.stop();
    for (const c of cleanups.reverse()) await c();
  });

  it("restores a backup taken while events arrive, with every event acknowledged before it started", async () => {
    const storage: TestStorage = await createTestStorage(backend);
    cleanups.push(() => storage.cleanup());
    service = await startRole("all", storage.env);
    const admin = await adminClient(service.url as string);
    const study = await createStudy(admin, { videoCount: 4, status: "running", weights: [1, 1] });
    const video = (study.videos[0] as Video).external_id;

    // Four participants send batches back to back; each acknowledged batch is noted with its time.
    const acknowledged: { at: number; ids: string[] }[] = [];
    let loading = true;
    const senders = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const client = new Client(service?.url as string);
        await client.post("/api/v1/participants/join", {
          experiment_id: study.experiment.id,
          login_id: `load-${i}`,
        });
        const sessionId = randomUUID();
        await client.post("/sessions", { session_id: sessionId });
        return { client, sessionId };
      }),
    );
    const load = Promise.all(
      senders.map(async ({ client, sessionId }) => {
        let seq = 0;
        while (loading) {
          const events = Array.from({ length: 20 }, () =>
            wireEvent("VIDEO_WATCHED_1S", { video_id: video, seq: seq++ }),
          );
          const r = await client.post("/api/v1/events", { session_id: sessionId, events });
          if (r.status === 202)
            acknowledged.push({ at: Date.now(), ids: events.map((e) => e.event_id as string) });
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const work = mkdtempSync(path.join(tmpdir(), "feedlab-backup-test-"));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    const file = path.join(work, "study.feedlab-backup.gz");
    const started = Date.now();
    const backup = await runFeedlabAsync(["backup", file], storage.env);
    const before = acknowledged.filter((a) => a.at < started).flatMap((a) => a.ids);
    const during = acknowledged.filter((a) => a.at >= started).length;
    loading = false;
    await load;
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/Backed up .* to .*study\.feedlab-backup\.gz/);
    // The embedded database belongs to the running service, which wrote the backup itself.
    expect(backup.stdout).toMatch(
      backend === "pglite" ? /the running service's database/ : /\d+ tables, \d+ rows/,
    );
    expect(before.length).toBeGreaterThan(100);
    // The service kept taking events while the backup ran.
    expect(during).toBeGreaterThan(0);

    // Restore into an empty data folder or database, while the original keeps running.
    const target = await createTestStorage(backend);
    cleanups.push(() => target.cleanup());
    const restored = runFeedlab(["restore", file], target.env);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/Restored \d+ tables, \d+ rows/);
    const opened = openDb({
      databaseUrl: target.env.DATABASE_URL ?? null,
      dataDir: target.env.FEEDLAB_DATA_DIR ?? "",
    });
    try {
      const inLog = new Set(
        ((await opened.db("event_log").select("event_id")) as { event_id: string }[]).map((r) => r.event_id),
      );
      expect(before.filter((id) => !inLog.has(id))).toEqual([]);
      const people = (await opened
        .db("users")
        .where({ experiment_id: study.experiment.id })
        .select("login_id")) as {
        login_id: string;
      }[];
      expect(people.map((p) => p.login_id).sort()).toEqual(["load-0", "load-1", "load-2", "load-3"]);
      // New rows continue after the restored ones (identity columns).
      await opened
        .db("audit_log")
        .insert({ at: new Date(), admin: "x", action: "test", target: null, details: "{}" });
    } finally {
      await opened.close();
    }
    // The restored database is this release's, complete: nothing left to migrate.
    const migrated = runFeedlab(["migrate"], target.env);
    expect(migrated.stdout).toContain("up to date");

    // A second restore into the now non-empty target, and a file cut short, are refused.
    const again = runFeedlab(["restore", file], target.env);
    expect([again.status, again.stderr]).toEqual([1, expect.stringContaining("not empty")]);
    const cut = path.join(work, "cut.gz");
    const { readFileSync } = await import("node:fs");
    writeFileSync(cut, readFileSync(file).subarray(0, 200));
    const empty = await createTestStorage(backend);
    cleanups.push(() => empty.cleanup());
    const refused = runFeedlab(["restore", cut], empty.env);
    expect(refused.status).toBe(1);
  }, 240_000);
});
