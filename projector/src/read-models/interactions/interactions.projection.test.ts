import { describe, expect, it } from "vitest";
import { ALICE, AT, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import { interactionsProjection } from "./interactions.projection.ts";

const weightOf = (ops: ReturnType<typeof interactionsProjection.project>) =>
  ops.map((op) => (op.kind === "accumulate" ? op.add?.weight : null));

describe("training interactions projection", () => {
  it("weighs one second watched 1, a like 3, and an end past half the video 2 (spec)", () => {
    expect(
      weightOf(interactionsProjection.project(logged("VIDEO_WATCHED_1S", { video_id: "v" }), AT)),
    ).toEqual([1]);
    expect(weightOf(interactionsProjection.project(logged("LIKE", { video_id: "v" }), AT))).toEqual([3]);
    expect(
      weightOf(
        interactionsProjection.project(logged("VIDEO_ENDED", { video_id: "v", watch_ratio: 0.51 }), AT),
      ),
    ).toEqual([2]);
  });

  it("gives no weight to an end at half the video or less, nor to other events", () => {
    expect(
      interactionsProjection.project(logged("VIDEO_ENDED", { video_id: "v", watch_ratio: 0.5 }), AT),
    ).toEqual([]);
    expect(interactionsProjection.project(logged("VIDEO_PLAY", { video_id: "v" }), AT)).toEqual([]);
    expect(interactionsProjection.project(logged("DISLIKE", { video_id: "v" }), AT)).toEqual([]);
  });

  it("sums per participant and video, counts the events, and keeps the newest times", () => {
    const e = logged("LIKE", {
      video_id: "v",
      timestamp: "2026-11-24T12:00:03.000Z",
      received_at: "2026-11-24T12:00:03.200Z",
    });
    expect(interactionsProjection.project(e, AT)).toEqual([
      {
        kind: "accumulate",
        table: "interactions",
        key: { experiment_id: EXPERIMENT, user_id: ALICE, video_id: "v" },
        add: { weight: 3, events: 1 },
        max: { last_at: "2026-11-24T12:00:03.000Z", last_received_at: "2026-11-24T12:00:03.200Z" },
        init: { simulated: false },
      },
    ]);
  });

  it("flags the row of a simulated participant's event simulated, with the same weight", () => {
    const [op] = interactionsProjection.project(logged("LIKE", { video_id: "v", simulated: true }), AT);
    expect(op).toMatchObject({ table: "interactions", add: { weight: 3 }, init: { simulated: true } });
  });
});
