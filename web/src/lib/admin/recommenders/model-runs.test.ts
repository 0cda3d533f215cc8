import { describe, expect, it } from "vitest";
import type { ModelRun } from "../../types.ts";
import {
  collapseSkipped,
  formatLift,
  formatMs,
  formatRate,
  isActive,
  runDuration,
  stepTimings,
} from "./model-runs.ts";

const run = (over: Partial<ModelRun>): ModelRun => ({
  id: "r",
  experiment_id: "e",
  status: "succeeded",
  trigger: "schedule",
  created_at: "2026-05-01T10:00:00.000Z",
  started_at: "2026-05-01T10:00:00.000Z",
  finished_at: "2026-05-01T10:00:02.500Z",
  interactions: 10,
  users: 2,
  videos: 5,
  watermark: null,
  metrics: null,
  skipped_reason: null,
  error: null,
  ...over,
});

describe("model runs in the console", () => {
  it("formats rates, the lift over popularity and durations", () => {
    expect(formatRate(0.4123)).toBe("41.2%");
    expect(formatRate(null)).toBe("—");
    expect(formatLift(0.3, 0.1)).toBe("3.0× popularity");
    expect(formatLift(0.3, 0)).toBe("");
    expect(formatLift(null, 0.1)).toBe("");
    expect(formatMs(850)).toBe("850 ms");
    expect(formatMs(12_400)).toBe("12.4 s");
    expect(formatMs(185_000)).toBe("3 min 5 s");
    expect(runDuration(run({}))).toBe("2.5 s");
    expect(runDuration(run({ started_at: null, finished_at: null }))).toBe("");
    expect(runDuration(run({ finished_at: null }), Date.parse("2026-05-01T10:00:01.000Z"))).toBe("1.0 s");
    const metrics = { timings_ms: { total: 1234 } } as unknown as ModelRun["metrics"];
    expect(runDuration(run({ metrics }))).toBe("1.2 s");
  });

  it("treats queued and running runs as active", () => {
    expect(isActive(run({ status: "queued" }))).toBe(true);
    expect(isActive(run({ status: "running" }))).toBe(true);
    expect(isActive(run({ status: "skipped" }))).toBe(false);
  });

  it("collapses consecutive skipped runs with the same trigger and reason into one row", () => {
    const rows = collapseSkipped([
      run({ id: "s3", status: "skipped", skipped_reason: "No new events" }),
      run({ id: "s2", status: "skipped", skipped_reason: "No new events" }),
      run({ id: "s1", status: "skipped", skipped_reason: "No new events" }),
      run({ id: "m1", status: "skipped", skipped_reason: "No new events", trigger: "manual" }),
      run({ id: "ok" }),
      run({ id: "s0", status: "skipped", skipped_reason: "No new events" }),
    ]);
    expect(rows.map((r) => [r.run.id, r.count, r.oldest.id])).toEqual([
      ["s3", 3, "s1"],
      ["m1", 1, "m1"],
      ["ok", 1, "ok"],
      ["s0", 1, "s0"],
    ]);
  });

  it("lists step timings in the order the steps run, unknown ones last, without the total", () => {
    // jsonb keeps keys in its own order (shorter keys first), not the order the steps ran.
    const metrics = {
      timings_ms: { train: 1500, total: 1600, extract: 12, custom_step: 3 },
    } as unknown as ModelRun["metrics"];
    expect(stepTimings(run({ metrics }))).toEqual([
      { step: "Extract interactions", time: "12 ms" },
      { step: "Train the served model", time: "1.5 s" },
      { step: "custom step", time: "3 ms" },
    ]);
  });
});
