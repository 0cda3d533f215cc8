import { randomUUID } from "node:crypto";
import type { LoggedEvent, WireEvent } from "@feedlab/schemas";
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

/** The stamped row of a step that must answer `ok`. */
function stamped(event: WireEvent, receivedAt = new Date()): LoggedEvent {
  const result = stamp(event, context, receivedAt);
  if (result.kind !== "ok") throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.value;
}

describe("stamping a valid event with the server fields", () => {
  it("answers ok with the session's participant, experiment, group, recommender keys, UIs and the receive time", () => {
    const receivedAt = new Date("2026-11-27T10:00:01.250Z");
    const result = stamp(ended({}), context, receivedAt);
    expect(result).toMatchObject({
      kind: "ok",
      value: {
        session_id: context.session_id,
        user_id: context.user_id,
        login_id: "p-1",
        experiment_id: context.experiment_id,
        group_id: context.group_id,
        algorithm_feed: "popularity",
        algorithm_watch: "random",
        ui_feed: "grid-desktop",
        ui_watch: "grid-desktop",
        received_at: "2026-11-27T10:00:01.250Z",
      },
    });
  });

  it("stores an upper-case event id in lower case", () => {
    const event = { ...ended({}), event_id: "8F14E45F-CEEA-4E7A-9D2B-1C3A5B6D7E8F" } as WireEvent;
    expect(stamped(event).event_id).toBe("8f14e45f-ceea-4e7a-9d2b-1c3a5b6d7e8f");
  });
});

describe("stamping an event with the columns its payload carries", () => {
  it("copies VIDEO_ENDED's completionRate and totalWatchedTime into watch_ratio and watch_duration", () => {
    const row = stamped(ended({ completionRate: 0.9, totalWatchedTime: 27 }));
    expect(row).toMatchObject({ watch_ratio: 0.9, watch_duration: 27 });
  });

  it("leaves the columns empty, and the payload as sent, when the payload's numbers are past the envelope's bounds", () => {
    const row = stamped(ended({ completionRate: 1e20, totalWatchedTime: -4 }));
    expect(row).toMatchObject({ watch_ratio: null, watch_duration: null });
    expect(row.payload).toMatchObject({ completionRate: 1e20, totalWatchedTime: -4 });
  });

  it("keeps what the client set in the envelope over the payload's values", () => {
    const event = { ...ended({ completionRate: 0.5, totalWatchedTime: 15 }), watch_ratio: 0.6 } as WireEvent;
    expect(stamped(event)).toMatchObject({ watch_ratio: 0.6, watch_duration: 15 });
  });
});
