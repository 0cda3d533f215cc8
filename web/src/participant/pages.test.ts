import { describe, expect, it } from "vitest";
import { routeOf } from "./pages.ts";

describe("the participant shell's routes", () => {
  it("maps / to the feed and /watch/{id} to the watch page with the id decoded", () => {
    expect(routeOf("/")).toEqual({ page: "feed" });
    expect(routeOf("/watch/abc-123")).toEqual({ page: "watch", id: "abc-123" });
    expect(routeOf("/watch/a%20b")).toEqual({ page: "watch", id: "a b" });
  });

  it("leaves every other path, and a malformed escape, to a full page load", () => {
    for (const path of ["/admin", "/join/x", "/watch", "/watch/", "/watch/a/b", "/watch/%E0%A4%A"]) {
      expect(routeOf(path)).toBeNull();
    }
  });
});
