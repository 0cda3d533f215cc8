import { describe, expect, it } from "vitest";
import { ALICE, AT, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import { watchedProjection } from "./watched.projection.ts";

describe("watched history projection", () => {
  it("records a video as watched after one second of playback, with the watch's time and place, the earliest winning", () => {
    const e = logged("VIDEO_WATCHED_1S", { video_id: "vid-1", received_at: "2026-11-24T12:00:01.000Z" });
    expect(watchedProjection.project(e, AT)).toEqual([
      {
        kind: "insert",
        table: "watched_videos",
        key: ["user_id", "video_id"],
        least: ["first_watched_at", "log_partition", "log_offset"],
        row: {
          user_id: ALICE,
          video_id: "vid-1",
          experiment_id: EXPERIMENT,
          first_watched_at: "2026-11-24T12:00:01.000Z",
          log_partition: 0,
          log_offset: 41,
        },
      },
    ]);
  });

  it("records a video as watched when it ended, whatever the ratio", () => {
    const ops = watchedProjection.project(logged("VIDEO_ENDED", { video_id: "vid-2", watch_ratio: 0.1 }), AT);
    expect(ops.map((op) => op.kind === "insert" && op.row.video_id)).toEqual(["vid-2"]);
  });

  it("ignores a play, five seconds watched, and a watch event without a video", () => {
    expect(watchedProjection.project(logged("VIDEO_PLAY", { video_id: "vid-1" }), AT)).toEqual([]);
    expect(watchedProjection.project(logged("VIDEO_WATCHED_5S", { video_id: "vid-1" }), AT)).toEqual([]);
    expect(watchedProjection.project(logged("VIDEO_WATCHED_1S"), AT)).toEqual([]);
  });
});
