import { describe, expect, it } from "vitest";
import {
  armColour,
  armName,
  clockText,
  count,
  cumulative,
  failureSummary,
  offClock,
  rateParts,
  recommenderKeys,
} from "./results.ts";

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

  it("writes counts with thousands separators, and names a deleted arm as removed", () => {
    // The locale is named, so the machine's own does not decide what the test expects.
    expect(count(1234567, "en-US")).toBe("1,234,567");
    expect(count(1234567, "de-DE")).toBe("1.234.567");
    const groups = [{ id: "a", name: "Control" }];
    expect(armName(groups, "a")).toBe("Control");
    expect(armName(groups, "gone")).toBe("(removed arm)");
  });

  it("lists each recommender the arms use or the results name once, sorted", () => {
    const groups = [
      { algorithm_config: { feed: "popular", watch: "related" } },
      { algorithm_config: { feed: "random", watch: "related" } },
    ];
    expect(recommenderKeys(groups, { recommenders: [{ key: "old-service" }, { key: "popular" }] })).toEqual([
      "old-service",
      "popular",
      "random",
      "related",
    ]);
  });

  it("sums a recommender's failures and names only the kinds that happened", () => {
    const none = {
      refused: 0,
      timeout: 0,
      http_5xx: 0,
      invalid_json: 0,
      not_a_list: 0,
      no_valid_ids: 0,
      outside_pool: 0,
      blocked_address: 0,
      other: 0,
    };
    expect(failureSummary({ failures: none })).toBe("0");
    expect(failureSummary({ failures: { ...none, timeout: 1200, http_5xx: 1 } })).toBe(
      "1,201: timeout 1200, http 5xx 1",
    );
  });

  it("lists participants whose clock is more than a minute off or who sent impossible times", () => {
    const p = (id: string, clock_offset_ms: number | null, implausible_times = 0) => ({
      id,
      clock_offset_ms,
      implausible_times,
    });
    const listed = offClock([
      p("on time", 59_000),
      p("behind", 61_000),
      p("ahead", -61_000),
      p("unknown", null),
      p("odd", 0, 2),
    ]);
    expect(listed.map((x) => x.id)).toEqual(["behind", "ahead", "odd"]);
  });

  it("reads a clock offset as minutes, or hours from 90 minutes, behind or ahead of the server", () => {
    expect(clockText(null)).toBe("unknown");
    expect(clockText(5 * 60_000)).toBe("5 min behind");
    expect(clockText(-89 * 60_000)).toBe("89 min ahead");
    expect(clockText(90 * 60_000)).toBe("1.5 h behind");
  });
});
