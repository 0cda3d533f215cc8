import { describe, expect, it } from "vitest";
import { resolveVideoUrl } from "./video-url.ts";

describe("resolveVideoUrl", () => {
  it.each([
    [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10",
      "youtube",
      "https://www.youtube.com/embed/dQw4w9WgXcQ",
    ],
    ["https://youtu.be/dQw4w9WgXcQ", "youtube", "https://www.youtube.com/embed/dQw4w9WgXcQ"],
    ["https://m.youtube.com/shorts/dQw4w9WgXcQ", "youtube", "https://www.youtube.com/embed/dQw4w9WgXcQ"],
    ["https://www.youtube.com/embed/dQw4w9WgXcQ", "youtube", "https://www.youtube.com/embed/dQw4w9WgXcQ"],
    ["https://vimeo.com/76979871", "vimeo", "https://player.vimeo.com/video/76979871"],
    ["https://player.vimeo.com/video/76979871", "vimeo", "https://player.vimeo.com/video/76979871"],
    ["https://cdn.example.org/a.mp4", "native", "https://cdn.example.org/a.mp4"],
    ["/media/demo/a.webm", "native", "/media/demo/a.webm"],
    ["https://www.youtube.com/watch?v=short", "native", "https://www.youtube.com/watch?v=short"],
  ])("classifies %s as %s", (url, type, resolved) => {
    expect(resolveVideoUrl(url)).toEqual({ type, resolved_url: resolved });
  });
});
