import { EVENT_TYPES, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../types.ts";
import { bySession, describeEvent } from "./trajectory.ts";

const stored = (type: (typeof EVENT_TYPES)[number], session = "s1"): StoredEvent => ({
  event_id: `${type}-${session}`,
  session_id: session,
  user_id: "u",
  login_id: "P-1",
  group_id: "g",
  event_type: type,
  video_id: exampleRowFields(type).video_id ?? null,
  timestamp: "2026-11-21T10:00:00.000Z",
  received_at: "2026-11-21T10:00:00.100Z",
  watch_ratio: type === "VIDEO_ENDED" ? 0.95 : null,
  watch_duration: null,
  position_in_feed: exampleRowFields(type).position_in_feed ?? null,
  algorithm_feed: "recency",
  algorithm_watch: "random",
  payload: EXAMPLE_PAYLOADS[type] as Record<string, unknown>,
  experiment_id: "e",
  group_name: "Arm A",
  seq: 1,
  ui_feed: "grid-desktop",
  ui_watch: "grid-desktop",
  timestamp_flag: null,
});

describe("trajectory descriptions", () => {
  it.each(EVENT_TYPES)("describes %s in words, without placeholders for its required fields", (type) => {
    const text = describeEvent(stored(type));
    expect(text.length).toBeGreaterThan(3);
    expect(text).not.toContain("undefined");
  });

  it("says what happened with the numbers that matter", () => {
    expect(describeEvent(stored("VIDEO_ENDED"))).toBe("Finished demo-sourdough-01 (95% watched)");
    expect(describeEvent(stored("FEED_CLICK"))).toBe("Clicked demo-sourdough-01 at position 3 in the feed");
    expect(describeEvent(stored("VIDEO_SEEK"))).toBe("Seeked demo-sourdough-01 from 0:12 to 0:20");
  });

  it("groups events by session in order of first appearance", () => {
    const groups = bySession([stored("PAGE_LOAD", "a"), stored("LIKE", "b"), stored("DISLIKE", "a")]);
    expect(groups.map((g) => [g.sessionId, g.events.length])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
  });
});
