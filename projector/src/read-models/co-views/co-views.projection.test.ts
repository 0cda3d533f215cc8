import { describe, expect, it } from "vitest";
import { ALICE, AT, BOB, EXPERIMENT, logged } from "../../logged-event.fixture.ts";
import type { RowOp } from "../../ops.ts";
import { coViewsProjection, pairFirstWatches } from "./co-views.projection.ts";

/** The co-view increments of a list of ops, as "a+b" strings. */
const pairs = (ops: readonly RowOp[]) =>
  ops.map((op) => (op.kind === "accumulate" ? `${op.key.video_a}+${op.key.video_b}:${op.add?.count}` : "?"));

const first = (user_id: string, video_id: string) => ({ experiment_id: EXPERIMENT, user_id, video_id });

describe("co-views settle step", () => {
  it("pairs a first watch with each video the participant watched before, smaller id first", () => {
    const ops = pairFirstWatches([first(ALICE, "b")], new Map([[ALICE, ["c", "a"]]]));
    expect(pairs(ops)).toEqual(["b+c:1", "a+b:1"]);
    expect(ops[0]).toMatchObject({ table: "co_views", key: { experiment_id: EXPERIMENT } });
  });

  it("pairs first watches of the same batch with each other once, in order", () => {
    const ops = pairFirstWatches([first(ALICE, "a"), first(ALICE, "b"), first(ALICE, "c")], new Map());
    // a: nothing before it; b: a; c: a and b. Three pairs, each once.
    expect(pairs(ops)).toEqual(["a+b:1", "a+c:1", "b+c:1"]);
  });

  it("never pairs the watches of two participants", () => {
    const ops = pairFirstWatches([first(ALICE, "a"), first(BOB, "b")], new Map([[BOB, ["c"]]]));
    expect(pairs(ops)).toEqual(["b+c:1"]);
  });

  it("pairs nothing for a participant's first ever watch", () => {
    expect(pairFirstWatches([first(ALICE, "a")], new Map())).toEqual([]);
  });
});

describe("co-views projection", () => {
  it("records the participant's first event with a video, which settle pairs", () => {
    expect(coViewsProjection.project(logged("VIDEO_PLAY", { video_id: "a" }), AT)).toEqual([
      {
        kind: "insert",
        table: "co_view_videos",
        key: ["user_id", "video_id"],
        row: { experiment_id: EXPERIMENT, user_id: ALICE, video_id: "a" },
      },
    ]);
  });

  it("records no video of a simulated participant, so their watches pair nothing", () => {
    for (const type of ["VIDEO_PLAY", "VIDEO_WATCHED_1S", "IMPRESSION"] as const)
      expect(coViewsProjection.project(logged(type, { video_id: "a", simulated: true }), AT)).toEqual([]);
  });
});
