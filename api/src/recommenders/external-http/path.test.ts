import { describe, expect, it } from "vitest";
import { parseIdPath, resolveIdPath } from "./path.ts";

const resolve = (json: unknown, path: string) => {
  const parsed = parseIdPath(path);
  if (!parsed.ok) throw new Error(parsed.message);
  return resolveIdPath(json, parsed.path);
};

describe("video_id_path resolution", () => {
  it.each([
    ["a top-level list", { video_ids: ["a", "b"] }, "video_ids", ["a", "b"]],
    ["a nested list", { data: { recommendations: ["a"] } }, "data.recommendations", ["a"]],
    [
      "a field of each element",
      { items: [{ video_id: "a" }, { video_id: "b" }] },
      "items.*.video_id",
      ["a", "b"],
    ],
    [
      "elements lacking the field are skipped",
      { items: [{ video_id: "a" }, { id: "x" }, 5] },
      "items.*.video_id",
      ["a"],
    ],
    ["a list at the root", ["a", "b"], "*", ["a", "b"]],
    [
      "two levels of lists",
      { pages: [{ ids: ["a"] }, { ids: ["b", "c"] }] },
      "pages.*.ids.*",
      ["a", "b", "c"],
    ],
    ["a numeric segment indexes a list", { pages: [{ ids: ["a"] }, { ids: ["b"] }] }, "pages.1.ids", ["b"]],
    ["an empty list", { video_ids: [] }, "video_ids", []],
    [
      "a list of mixed values is returned as it is",
      { video_ids: ["a", 1, null] },
      "video_ids",
      ["a", 1, null],
    ],
    ["* over an empty list", { items: [] }, "items.*.video_id", []],
  ])("finds %s", (_name, json, path, expected) => {
    expect(resolve(json, path)).toEqual(expected);
  });

  it.each([
    ["a string", { video_ids: "a,b" }, "video_ids"],
    ["an object", { video_ids: { a: 1 } }, "video_ids"],
    ["a missing key", { other: [] }, "video_ids"],
    ["null", { video_ids: null }, "video_ids"],
    ["a scalar response", 42, "video_ids"],
    ["* over an object", { items: { a: { video_id: "x" } } }, "items.*.video_id"],
    ["a path through a string", { data: "x" }, "data.recommendations"],
    ["an index out of range", { pages: [] }, "pages.0"],
  ])("answers null (not a list) for %s", (_name, json, path) => {
    expect(resolve(json, path)).toBeNull();
  });

  it.each([[""], ["a..b"], [".a"], ["a."], [" a"]])("refuses the path %j", (path) => {
    expect(parseIdPath(path).ok).toBe(false);
  });
});
