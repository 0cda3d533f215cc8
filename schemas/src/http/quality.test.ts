import { describe, expect, it } from "vitest";
import {
  QUALITY_FLAG_LABELS,
  QUALITY_FLAG_NAMES,
  QUALITY_FLAGS,
  QUALITY_MEASURE_NAMES,
  QUALITY_THRESHOLDS,
  qualityFlags,
} from "./quality.ts";

/** A participant past no threshold. */
const clean = {
  active_seconds: 120,
  visible_watch_seconds: 30,
  watch_seconds: 30,
  hidden_share: 0,
  pointer_events: 20,
  viewport_width: 1280,
  seconds_per_question: 5,
  straight_lined: false,
  attention: { failed: 0 },
  duplicate_recruiting_id: false,
};

describe("quality flags (docs/quality.md)", () => {
  it("raises none for a participant within every threshold", () => {
    expect(qualityFlags(clean)).toEqual([]);
  });

  it.each([
    [{ active_seconds: 59.9 }, ["low_active_time"]],
    [{ active_seconds: 60 }, []],
    // Joined, never on the pages: nothing to judge yet.
    [{ active_seconds: 0, hidden_share: null }, []],
    [{ hidden_share: 0.51 }, ["hidden_tab"]],
    [{ hidden_share: 0.5 }, []],
    [{ watch_seconds: 10, visible_watch_seconds: 4.9 }, ["watched_hidden"]],
    [{ watch_seconds: 9, visible_watch_seconds: 0 }, []],
    [{ pointer_events: 0 }, ["no_pointer"]],
    [{ pointer_events: 0, viewport_width: 1024 }, []],
    [{ seconds_per_question: 1.99 }, ["speeding"]],
    [{ straight_lined: true }, ["straight_lined"]],
    [{ attention: { failed: 1 } }, ["failed_attention_check"]],
    [{ duplicate_recruiting_id: true }, ["duplicate_recruiting_id"]],
  ])("raises exactly the flag past its threshold: %j", (change, flags) => {
    expect(qualityFlags({ ...clean, ...change })).toEqual(flags);
  });

  it("raises no flag from a null measure", () => {
    const nulls = { hidden_share: null, viewport_width: null, seconds_per_question: null, pointer_events: 0 };
    expect(qualityFlags({ ...clean, ...nulls })).toEqual([]);
  });

  it("names every flag readably and states its rule with the threshold's own numbers", () => {
    for (const f of QUALITY_FLAG_NAMES) expect(QUALITY_FLAG_LABELS[f]).toMatch(/^[A-Z]/);
    expect(QUALITY_FLAGS.no_pointer).toContain(String(QUALITY_THRESHOLDS.desktop_viewport_px));
    expect(QUALITY_MEASURE_NAMES).toContain("attention_failed");
  });
});
