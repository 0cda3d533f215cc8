import { describe, expect, it } from "vitest";
import { AT, logged } from "../../logged-event.fixture.ts";
import { eventsProjection } from "./events.projection.ts";

describe("events store projection", () => {
  it("stores every field of the event, the payload as a JSON document, and where its first copy sits", () => {
    const e = logged("LIKE", {
      video_id: "vid-1",
      payload: { videoId: "vid-1", timestamp: 12.5 },
      seq: 7,
      ui_feed: "3f2a@4",
    });
    expect(eventsProjection.project(e, AT)).toEqual([
      {
        kind: "insert",
        table: "events",
        key: ["event_id"],
        row: {
          event_id: e.event_id,
          session_id: e.session_id,
          user_id: e.user_id,
          login_id: "alice",
          experiment_id: e.experiment_id,
          group_id: e.group_id,
          event_type: "LIKE",
          video_id: "vid-1",
          timestamp: "2026-11-24T12:00:00.000Z",
          received_at: "2026-11-24T12:00:00.100Z",
          watch_ratio: null,
          watch_duration: null,
          position_in_feed: null,
          algorithm_feed: "popularity",
          algorithm_watch: "similarity",
          payload: { json: '{"videoId":"vid-1","timestamp":12.5}' },
          seq: 7,
          ui_feed: "3f2a@4",
          ui_watch: "grid-desktop",
          simulated: false,
          log_partition: 0,
          log_offset: 41,
        },
      },
    ]);
  });

  it("marks a simulated participant's event simulated, so erasure knows it counted nowhere real", () => {
    const [op] = eventsProjection.project(logged("VIDEO_PLAY", { video_id: "v", simulated: true }), AT);
    expect(op?.kind === "insert" && op.row.simulated).toBe(true);
  });

  it("stores events of every type, high-frequency ones included", () => {
    expect(eventsProjection.project(logged("MOUSE_MOVEMENT"), AT)).toHaveLength(1);
    expect(eventsProjection.project(logged("WINDOW_BLUR"), AT)).toHaveLength(1);
  });
});
