import type { ParticipantQuality } from "@feedlab/schemas/http/quality.ts";
import { describe, expect, it } from "vitest";
import { flagBadge, measureRows } from "./quality.ts";

const base: ParticipantQuality = {
  user_id: "u1",
  login_id: "p1",
  group_id: "g1",
  active_seconds: 30.04,
  visible_watch_seconds: 10,
  watch_seconds: 20,
  hidden_share: 0.625,
  pointer_events: 0,
  viewport_width: 1280,
  seconds_per_question: null,
  straight_lined: false,
  attention: { passed: 1, failed: 0 },
  duplicate_recruiting_id: false,
  flags: ["low_active_time", "hidden_tab", "no_pointer"],
  excluded_by_rules: false,
};

describe("a participant's quality as the console shows it", () => {
  it("names a flag readably and keeps its rule as the tooltip", () => {
    expect(flagBadge("no_pointer")).toEqual({
      flag: "no_pointer",
      label: "No pointer on desktop",
      rule: "no MOUSE_MOVEMENT on a desktop viewport (wider than 1024 px)",
    });
  });

  it("shows each measure beside its threshold, and marks the flagged ones", () => {
    const rows = measureRows(base);
    expect(rows.map((r) => [r.label, r.value, r.threshold, r.flagged])).toEqual([
      ["Active time", "30 s", "under 60 s", true],
      ["Hidden share of the visit", "63%", "over 50%", true],
      ["Playback, visible / all", "10 s / 20 s", "visible under 50% (from 10 s of playback)", false],
      ["Pointer events", "0 (viewport 1280 px)", "none on a viewport wider than 1024 px", true],
      ["Survey seconds per question", "—", "under 2 s", false],
      ["Straight-lined", "No", "yes", false],
      ["Attention checks, passed / failed", "1 / 0", "1 or more failed", false],
      ["Recruiting ID under another login", "No", "yes", false],
    ]);
  });
});
