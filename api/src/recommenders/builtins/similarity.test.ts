import type { Video } from "@feedlab/schemas";
import { MetadataIndex, termsOf } from "@feedlab/trainer";
import { describe, expect, it } from "vitest";
import { blend, CO_VIEW_PRIOR } from "./similarity.recommender.ts";

const video = (i: number, over: Partial<Video>): Video => ({
  id: `id-${i}`,
  external_id: `ext-${i}`,
  url: "",
  resolved_url: "",
  type: "native",
  title: "",
  channel_name: null,
  category: null,
  description: null,
  tags: [],
  duration_seconds: null,
  view_count: null,
  thumbnail_url: null,
  published_at: null,
  comments: [],
  captions: [],
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over,
});

describe("metadata similarity", () => {
  const videos = [
    video(0, { title: "Sourdough starter basics", tags: ["bread", "baking"], category: "Food" }),
    video(1, { title: "Reviving a sourdough starter", tags: ["bread"], category: "Food" }),
    video(2, { title: "Night train to Venice", tags: ["travel", "train"], category: "Travel" }),
    video(3, { title: "Baking rye bread", tags: ["bread", "baking"], category: "Food" }),
    video(4, { title: "Lisbon in 48 hours", tags: ["travel"], category: "Travel" }),
  ];
  const index = new MetadataIndex(videos);

  it("weighs tags, category, channel and title words", () => {
    expect([...termsOf(videos[0] as Video).keys()]).toEqual([
      "tag:bread",
      "tag:baking",
      "cat:food",
      "w:sourdough",
      "w:starter",
      "w:basics",
    ]);
  });

  it("ranks videos sharing terms first and leaves unrelated ones out", () => {
    const n = index.neighbours(0).map((x) => x.index);
    expect(n.slice(0, 2).sort()).toEqual([1, 3]);
    expect(n).not.toContain(0);
    expect(n).not.toContain(2);
    expect(index.neighbours(2).map((x) => x.index)).toEqual([4]);
  });

  it("scores in (0, 1], best first", () => {
    const scores = index.neighbours(0).map((x) => x.score);
    expect(scores.every((s) => s > 0 && s <= 1)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe("blending with co-views", () => {
  const meta = [
    { index: 1, score: 0.9 },
    { index: 2, score: 0.5 },
  ];

  it("is metadata alone without co-views", () => {
    expect(blend(meta, [])).toEqual(meta);
  });

  it("lets co-views weigh in by n / (n + prior)", () => {
    const n = 30;
    const beta = n / (n + CO_VIEW_PRIOR);
    const out = blend(meta, [[3, 30]]);
    expect(out[0]).toEqual({ index: 3, score: beta });
    expect(out.find((x) => x.index === 1)?.score).toBeCloseTo((1 - beta) * 0.9);
  });
});
