import { describe, expect, it } from "vitest";
import { cumulative, formatRate } from "./results.ts";

describe("results as the console shows them", () => {
  it("reads a rate with its interval as percentages", () => {
    expect(formatRate({ value: 0.15, low: 0.03773, high: 0.26227 })).toBe("15.0% (3.8%–26.2%)");
    expect(formatRate({ value: 0.5, low: null, high: null })).toBe("50.0% (one participant)");
    expect(formatRate({ value: null, low: null, high: null })).toBe("—");
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
