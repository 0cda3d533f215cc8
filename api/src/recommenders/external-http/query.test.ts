import { describe, expect, it } from "vitest";
import { queryParams, urlWithQuery } from "./query.ts";

describe("GET query encoding of the body", () => {
  it.each([
    ["a string", { user_id: "u-1" }, [["user_id", "u-1"]]],
    [
      "numbers and booleans",
      { limit: 21, fresh: false },
      [
        ["limit", "21"],
        ["fresh", "false"],
      ],
    ],
    ["null is left out", { current_video_id: null }, []],
    [
      "a list repeats the name per element",
      { exclude_video_ids: ["a", "b"] },
      [
        ["exclude_video_ids", "a"],
        ["exclude_video_ids", "b"],
      ],
    ],
    ["an empty list is left out", { exclude_video_ids: [] }, []],
    ["an object is JSON text", { filter: { lang: "en" } }, [["filter", '{"lang":"en"}']]],
    ["a list inside a list is JSON text", { m: [[1, 2]] }, [["m", "[1,2]"]]],
    ["nulls inside a list are left out", { m: ["a", null] }, [["m", "a"]]],
    [
      "body order is kept",
      { b: 1, a: 2 },
      [
        ["b", "1"],
        ["a", "2"],
      ],
    ],
  ])("encodes %s", (_name, body, expected) => {
    expect(queryParams(body)).toEqual(expected);
  });

  it.each([[null], [[1, 2]], ["text"], [5]])(
    "gives no parameters for a body that is not an object: %j",
    (body) => {
      expect(queryParams(body)).toEqual([]);
    },
  );

  it.each([
    [
      "appends to a URL without a query",
      "http://rec.example/recommend",
      { limit: 3, ids: ["a b", "c&d"] },
      "http://rec.example/recommend?limit=3&ids=a+b&ids=c%26d",
    ],
    [
      "keeps the configured URL's own parameters first",
      "http://rec.example/r?model=v2",
      { limit: 3 },
      "http://rec.example/r?model=v2&limit=3",
    ],
    [
      "percent-encodes JSON text",
      "http://rec.example/r",
      { f: { a: 1 } },
      "http://rec.example/r?f=%7B%22a%22%3A1%7D",
    ],
  ])("%s", (_name, url, body, expected) => {
    expect(urlWithQuery(url, body)).toBe(expected);
  });
});
