import { VideosCreate } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { compileBody, toFieldPath } from "./validation.ts";

describe("validation", () => {
  it("turns JSON pointers into field paths", () => {
    expect(toFieldPath("/videos/2/url")).toBe("videos[2].url");
    expect(toFieldPath("", "name")).toBe("name");
    expect(toFieldPath("/questions/0", "answers")).toBe("questions[0].answers");
  });

  it("names the missing, unknown and wrong fields of a body", () => {
    const check = compileBody(VideosCreate);
    const r = check({
      videos: [
        { external_id: "a", url: "/x.webm" },
        { external_id: "b", url: 5, title: "t", extra: 1 },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.field)).toEqual(
      expect.arrayContaining(["videos[0].title", "videos[1].url", "videos[1].extra"]),
    );
  });
});
