import { describe, expect, it } from "vitest";
import { armColour, cumulative, rateParts } from "./results.ts";

describe("results as the console shows them", () => {
  it("reads a rate and, for the second line of its cell, its interval as percentages, or why there is none", () => {
    expect(rateParts({ value: 0.15, low: 0.03773, high: 0.26227 })).toEqual({
      value: "15.0%",
      interval: "(3.8%–26.2%)",
    });
    expect(rateParts({ value: 0.5, low: null, high: null })).toEqual({
      value: "50.0%",
      interval: "(one participant)",
    });
    expect(rateParts({ value: null, low: null, high: null })).toEqual({ value: "—", interval: "" });
  });

  it("gives each arm its own colour, the same in every chart, repeating after ten arms", () => {
    const first = Array.from({ length: 10 }, (_, i) => armColour(i));
    expect(new Set(first).size).toBe(10);
    expect(armColour(10)).toBe(armColour(0));
  });

  it("sums each arm's counts over time, every arm starting at zero when the study started", () => {
    const points = cumulative(
      {
        bucket: "minute",
        groups: [
          {
            group_id: "a",
            name: "A",
            points: [
              {
                at: "2026-11-25T10:00:00.000Z",
                impressions: 3,
                feed_clicks: 1,
                plays: 0,
                completions: 0,
                likes: 0,
                joined: 1,
              },
              {
                at: "2026-11-25T10:02:00.000Z",
                impressions: 2,
                feed_clicks: 0,
                plays: 0,
                completions: 0,
                likes: 0,
                joined: 0,
              },
            ],
          },
          {
            group_id: "b",
            name: "B",
            points: [
              {
                at: "2026-11-25T10:01:00.000Z",
                impressions: 4,
                feed_clicks: 2,
                plays: 0,
                completions: 0,
                likes: 0,
                joined: 1,
              },
            ],
          },
          { group_id: "c", name: "C", points: [] },
        ],
      },
      "impressions",
    );
    expect(points.map((p) => [p.arm, p.at.toISOString().slice(11, 16), p.total])).toEqual([
      ["A", "10:00", 3],
      ["A", "10:02", 5],
      ["B", "10:00", 0],
      ["B", "10:01", 4],
    ]);
  });
});
