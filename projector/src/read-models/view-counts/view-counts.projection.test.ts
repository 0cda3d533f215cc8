import { describe, expect, it } from "vitest";
import { AT, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import { viewCountsProjection } from "./view-counts.projection.ts";

describe("view counts projection", () => {
  it("counts every VIDEO_PLAY of the experiment's video once and keeps the last play's time", () => {
    const e = logged("VIDEO_PLAY", { video_id: "vid-1", received_at: "2026-11-24T12:00:05.000Z" });
    expect(viewCountsProjection.project(e, AT)).toEqual([
      {
        kind: "accumulate",
        table: "video_view_counts",
        key: { experiment_id: EXPERIMENT, video_id: "vid-1" },
        add: { plays: 1 },
        max: { last_played_at: "2026-11-24T12:00:05.000Z" },
      },
    ]);
  });

  it("does not count a simulated participant's play, so popularity and the cards' counts stay real", () => {
    const e = logged("VIDEO_PLAY", { video_id: "vid-1", simulated: true });
    expect(viewCountsProjection.project(e, AT)).toEqual([]);
  });

  it("does not count pauses, watched thresholds or ends", () => {
    for (const type of ["VIDEO_PAUSE", "VIDEO_WATCHED_1S", "VIDEO_ENDED"] as const)
      expect(viewCountsProjection.project(logged(type, { video_id: "vid-1" }), AT)).toEqual([]);
  });
});
