import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createMonitoringRecorder } from "./recorder.ts";

describe.each(BACKENDS)("monitoring records (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(backend);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("appends each minute's sums once per flush, adds up nothing twice, and deletes records older than a week", async () => {
    const db = app.runtime.db;
    const experiment = randomUUID();
    const key = `rec-${randomUUID().slice(0, 8)}`;
    const at = new Date("2026-11-25T10:00:30Z");
    await db("recommender_calls").insert({
      experiment_id: experiment,
      recommender: key,
      surface: "feed",
      minute: new Date(at.getTime() - 8 * 24 * 3600_000),
      calls: 5,
      empty_results: 0,
      failures: JSON.stringify({}),
      latency: JSON.stringify({}),
    });
    const recorder = createMonitoringRecorder({
      db,
      now: () => at,
      log: pino({ level: "silent" }),
      flushMs: 3600_000,
    });
    recorder.page({ experimentId: experiment, recommender: key, surface: "feed", ms: 12, empty: false });
    recorder.page({ experimentId: experiment, recommender: key, surface: "feed", ms: 30, empty: true });
    recorder.failure({
      experimentId: experiment,
      recommender: key,
      surface: "feed",
      kind: "timeout",
      message: "slow",
    });
    await recorder.flush();
    await recorder.flush(); // nothing new: nothing written
    await recorder.close();
    const rows = await db("recommender_calls")
      .where({ recommender: key })
      .select("minute", "calls", "empty_results", "failures");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ calls: 2, empty_results: 1 });
    const failures = typeof rows[0].failures === "string" ? JSON.parse(rows[0].failures) : rows[0].failures;
    expect(failures).toEqual({ timeout: 1 });
    expect(new Date(rows[0].minute).toISOString()).toBe("2026-11-25T10:00:00.000Z");
  });
});
