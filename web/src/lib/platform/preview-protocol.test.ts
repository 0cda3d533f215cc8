import { describe, expect, it } from "vitest";
import { asRender, asReport } from "./preview-protocol.ts";

describe("the layout preview's messages", () => {
  it("takes a render request only with code, a known page and a list of videos", () => {
    const render = { kind: "feedlab-preview:render", code: "export default 1", page: "feed", videos: [] };
    expect(asRender(render)).toEqual(render);
    expect(asRender({ ...render, page: "admin" })).toBeNull();
    expect(asRender({ ...render, code: 1 })).toBeNull();
    expect(asRender({ ...render, videos: "all" })).toBeNull();
    expect(asRender("feedlab-preview:render")).toBeNull();
  });

  it("believes only the shape of what the preview (researcher code) reports: short text, plain event types", () => {
    expect(asReport({ kind: "feedlab-preview:ready", extra: "<script>" })).toEqual({
      kind: "feedlab-preview:ready",
    });
    expect(asReport({ kind: "feedlab-preview:failed", message: "x".repeat(2000) })).toEqual({
      kind: "feedlab-preview:failed",
      message: "x".repeat(500),
    });
    expect(
      asReport({
        kind: "feedlab-preview:events",
        types: ["IMPRESSION", 7, { toString: "x" }, "y".repeat(300)],
      }),
    ).toEqual({ kind: "feedlab-preview:events", types: ["IMPRESSION", "y".repeat(100)] });
    expect(asReport({ kind: "feedlab-preview:events", types: "IMPRESSION" })).toBeNull();
    expect(asReport({ kind: "feedlab-admin:create" })).toBeNull();
    expect(asReport(null)).toBeNull();
  });
});
