import { randomUUID } from "node:crypto";
import type { WireEvent } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { type StampContext, stamp } from "./stamp.step.ts";

const context: StampContext = {
  session_id: randomUUID(),
  user_id: randomUUID(),
  login_id: "p-1",
  experiment_id: randomUUID(),
  group_id: randomUUID(),
  algorithm_feed: "popularity",
  algorithm_watch: "random",
  ui_feed: "grid-desktop",
  ui_watch: "grid-desktop",
};

const ended = (payload: Record<string, unknown>) =>
  ({
    event_id: randomUUID(),
    event_type: "VIDEO_ENDED",
    video_id: "v-1",
    timestamp: "2026-11-27T10:00:00.000Z",
    payload: { duration: 30, ...payload },
  }) as WireEvent;

describe("stamping an event with the columns its payload carries", () => {
  it("copies VIDEO_ENDED's completionRate and totalWatchedTime into watch_ratio and watch_duration", () => {
    const row = stamp(ended({ completionRate: 0.9, totalWatchedTime: 27 }), context, new Date());
    expect(row).toMatchObject({ watch_ratio: 0.9, watch_duration: 27 });
  });

  it("leaves the columns empty, and the payload as sent, when the payload's numbers are past the envelope's bounds", () => {
    const row = stamp(ended({ completionRate: 1e20, totalWatchedTime: -4 }), context, new Date());
    expect(row).toMatchObject({ watch_ratio: null, watch_duration: null });
    expect(row.payload).toMatchObject({ completionRate: 1e20, totalWatchedTime: -4 });
  });

  it("keeps what the client set in the envelope over the payload's values", () => {
    const event = { ...ended({ completionRate: 0.5, totalWatchedTime: 15 }), watch_ratio: 0.6 } as WireEvent;
    expect(stamp(event, context, new Date())).toMatchObject({ watch_ratio: 0.6, watch_duration: 15 });
  });
});
