import { describe, expect, it } from "vitest";
import {
  configOf,
  formatHeaders,
  headersHint,
  KEY_PATTERN,
  pagesOf,
  parseHeaders,
  parseTemplate,
  recommenderLabel,
  recommendersFor,
  storedHeaderNames,
} from "./recommender-form.ts";

describe("the recommender form", () => {
  it.each([
    ["Authorization: Bearer x\nX-Study:  a b ", { Authorization: "Bearer x", "X-Study": "a b" }],
    ["\n\n", {}],
    ["X-Url: http://a:b/c", { "X-Url": "http://a:b/c" }],
  ])("reads header lines %j", (text, headers) => {
    expect(parseHeaders(text)).toEqual({ ok: true, headers });
  });

  it.each([["no colon here"], [": value"], ["Bad Name: v"]])("refuses the header line %j", (text) => {
    expect(parseHeaders(text).ok).toBe(false);
  });

  it("writes headers back as lines", () => {
    expect(formatHeaders({ A: "1", B: "2" })).toBe("A: 1\nB: 2");
  });

  it("keeps a saved header's hidden value: the form sends ******** back, and says so", () => {
    const shown = { Authorization: "********", "X-Study": "pilot" };
    expect(parseHeaders(formatHeaders(shown))).toEqual({ ok: true, headers: shown });
    expect(storedHeaderNames(shown)).toEqual(["Authorization"]);
    expect(headersHint(["Authorization"])).toContain(
      "Authorization has a saved value, hidden as ********: leave ******** to keep it",
    );
    expect(headersHint([])).not.toContain("********");
  });

  it.each([
    ["", null],
    ["  ", null],
    ['{"n": "{limit}"}', { n: "{limit}" }],
  ])("reads the template %j", (text, template) => {
    expect(parseTemplate(text)).toEqual({ ok: true, template });
  });

  it.each([["[1]"], ["5"], ["{oops"], ["null"]])("refuses the template %j", (text) => {
    expect(parseTemplate(text).ok).toBe(false);
  });

  it("fills the API's defaults for a new recommender", () => {
    expect(configOf(null)).toEqual({
      url: "",
      method: "POST",
      timeout_seconds: 5,
      headers: {},
      body_template: null,
      video_id_path: "video_ids",
    });
  });

  it("checks keys like the API", () => {
    expect(["my-rec", "ab", "a_1"].every((k) => KEY_PATTERN.test(k))).toBe(true);
    expect(["a", "My", "1ab", "a b"].some((k) => KEY_PATTERN.test(k))).toBe(false);
  });

  it("offers each page only the recommenders that declare they serve it, labelled with their key", () => {
    const rec = (key: string, label: string, supports_feed: boolean, supports_watch: boolean) =>
      ({ key, label, supports_feed, supports_watch }) as Parameters<typeof recommendersFor>[0][number];
    const all = [
      rec("random", "random", true, true),
      rec("ext-feed", "Lab feed", true, false),
      rec("ext-watch", "", false, true),
    ];
    expect(recommendersFor(all, "feed").map((r) => r.key)).toEqual(["random", "ext-feed"]);
    expect(recommendersFor(all, "watch").map((r) => r.key)).toEqual(["random", "ext-watch"]);
    expect(all.map(recommenderLabel)).toEqual(["random", "Lab feed (ext-feed)", "ext-watch"]);
  });

  it("names the pages a recommender serves", () => {
    expect(pagesOf({ supports_feed: true, supports_watch: false })).toBe("Feed");
    expect(pagesOf({ supports_feed: true, supports_watch: true })).toBe("Feed, Watch");
  });
});
