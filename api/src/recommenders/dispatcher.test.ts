import { describe, expect, it } from "vitest";
import { videoRows } from "../../../test/harness/fixtures.ts";
import { pageJson } from "./dispatcher.ts";
import { buildPool } from "./pool.ts";

// Titles and text that JSON must escape: quotes, backslashes, control characters, non-ASCII, a
// line separator; and a video without optional fields.
const pool = buildPool(
  "e",
  videoRows(4, (i) => ({
    title: ['Say "hi" \\ bye', "tab\there\u2028new line", "Ünïcödé 🎬 ビデオ", "plain"][i],
    description: i === 3 ? null : "line one\nline two",
    tags: i === 2 ? ["a", 'b"c'] : [],
    comments: i === 1 ? [{ author: "Zoë", text: "</script>" }] : [],
  })),
);

describe("a feed page's JSON", () => {
  it("is the page object's JSON, with each item the pool video and its propensity, for any text", () => {
    for (const propensity of [1, 0.125, 1 / 3, null]) {
      const indices = [2, 0, 3, 1];
      const rest = { has_more: true, next_offset: 20, recommender: 'ext "one"' };
      const text = pageJson(pool, indices, propensity, rest);
      const expected = {
        items: indices.map((i) => ({ ...pool.videos[i], propensity })),
        ...rest,
      };
      expect(text).toBe(JSON.stringify(expected));
      expect(JSON.parse(text)).toEqual(expected);
    }
  });

  it("is an empty list with the rest of the page when no video is left", () => {
    const text = pageJson(pool, [], 1, { has_more: false, next_offset: null, recommender: "recency" });
    expect(JSON.parse(text)).toEqual({
      items: [],
      has_more: false,
      next_offset: null,
      recommender: "recency",
    });
  });
});
