import { describe, expect, it } from "vitest";
import { AT, logged } from "../../logged-event.fixture.ts";
import { evaluationProjection } from "./evaluation.projection.ts";

const keyOf = (e: ReturnType<typeof logged>) => {
  const [op] = evaluationProjection.project(e, AT);
  return op && op.kind === "accumulate" ? { key: op.key, add: op.add } : null;
};

describe("evaluation projection", () => {
  it("counts a feed impression and a feed click for the feed's recommender", () => {
    expect(keyOf(logged("IMPRESSION", { payload: { context: "feed" } }))).toMatchObject({
      key: { surface: "feed", recommender: "popularity" },
      add: { impressions: 1 },
    });
    expect(keyOf(logged("FEED_CLICK"))).toMatchObject({
      key: { surface: "feed", recommender: "popularity" },
      add: { feed_clicks: 1 },
    });
  });

  it("counts a related impression, plays, completions and likes for the watch page's recommender", () => {
    expect(keyOf(logged("IMPRESSION", { payload: { context: "related" } }))).toMatchObject({
      key: { surface: "watch", recommender: "similarity" },
      add: { impressions: 1 },
    });
    for (const [type, column] of [
      ["VIDEO_PLAY", "plays"],
      ["VIDEO_ENDED", "completions"],
      ["LIKE", "likes"],
    ] as const)
      expect(keyOf(logged(type))).toMatchObject({ key: { surface: "watch" }, add: { [column]: 1 } });
  });

  it("keys every count by participant, so intervals can treat participants as clusters", () => {
    expect(keyOf(logged("FEED_CLICK"))?.key).toMatchObject({
      experiment_id: "00000000-0000-4000-8000-0000000e0001",
      user_id: "00000000-0000-4000-8000-00000000a11c",
    });
  });

  it("ignores every other event", () => {
    expect(evaluationProjection.project(logged("VIDEO_PAUSE"), AT)).toEqual([]);
    expect(evaluationProjection.project(logged("DISLIKE"), AT)).toEqual([]);
  });

  it("counts each event again per group and minute of receipt, for results over time", () => {
    const ops = evaluationProjection.project(logged("LIKE", { received_at: "2026-11-24T12:34:56.789Z" }), AT);
    expect(ops[1]).toEqual({
      kind: "accumulate",
      table: "evaluation_timeline",
      key: {
        experiment_id: "00000000-0000-4000-8000-0000000e0001",
        group_id: expect.any(String),
        minute: "2026-11-24T12:34:00.000Z",
      },
      add: { likes: 1 },
    });
  });

  it("keeps a simulated participant's own counts but counts their event in no minute of the arm", () => {
    const ops = evaluationProjection.project(logged("VIDEO_PLAY", { simulated: true }), AT);
    expect(ops.map((op) => op.table)).toEqual(["evaluation_counts"]);
    expect(ops[0]).toMatchObject({
      key: { user_id: "00000000-0000-4000-8000-00000000a11c" },
      add: { plays: 1 },
    });
  });
});
