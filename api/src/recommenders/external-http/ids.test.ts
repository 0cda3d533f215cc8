import { describe, expect, it } from "vitest";
import { idsFromResponse } from "./external-http.recommender.ts";
import { parseIdPath } from "./path.ts";

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";
const OUT = "dddddddd-dddd-4ddd-8ddd-dddddddddddd";
const pool = new Set([A, B, C]);
const path = (p: string) => {
  const r = parseIdPath(p);
  if (!r.ok) throw new Error(r.message);
  return r.path;
};
const read = (json: unknown, p = "video_ids") => idsFromResponse(json, path(p), (id) => pool.has(id));

describe("ids of an external recommender's response", () => {
  it.each([
    ["keeps the order", { video_ids: [C, A, B] }, [C, A, B]],
    ["drops non-UUIDs silently", { video_ids: ["x", A, 7, null, { id: B }, B] }, [A, B]],
    ["drops ids outside the pool silently", { video_ids: [OUT, B] }, [B]],
    ["drops repeats", { video_ids: [A, A, B] }, [A, B]],
    ["reads upper-case UUIDs", { video_ids: [A.toUpperCase()] }, [A]],
    ["an empty list is a plain empty answer", { video_ids: [] }, []],
  ])("%s", (_name, json, expected) => {
    expect(read(json)).toMatchObject({ ok: true, ids: expected });
  });

  it.each([
    ["a path to a non-list", { video_ids: "abc" }, "not_a_list"],
    ["a missing path", {}, "not_a_list"],
    ["all values invalid", { video_ids: ["x", 1, null] }, "all_invalid_ids"],
    ["all ids outside the pool", { video_ids: [OUT] }, "all_outside_pool"],
    ["invalid and outside ids only", { video_ids: ["x", OUT] }, "all_outside_pool"],
  ])("says why nothing is left for %s", (_name, json, kind) => {
    expect(read(json)).toMatchObject({ ok: false, kind });
  });

  it("follows a * path", () => {
    expect(read({ items: [{ video_id: B }, { video_id: A }] }, "items.*.video_id")).toMatchObject({
      ok: true,
      ids: [B, A],
    });
  });

  it("counts what came back and why values were dropped (the console's Test call shows it)", () => {
    expect(read({ video_ids: ["x", A, 7, OUT, A, B] }).count).toEqual({
      returned: 6,
      invalid: 2,
      outside_pool: 1,
    });
    expect(read({ video_ids: [OUT, "y"] }).count).toEqual({ returned: 2, invalid: 1, outside_pool: 1 });
  });
});
