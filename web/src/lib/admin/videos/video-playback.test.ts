import { describe, expect, it } from "vitest";
import { missingPlayer } from "./video-playback.ts";

describe("missingPlayer", () => {
  it("finds a player for media files, this server's files and the providers with adapters", () => {
    for (const [type, url] of [
      ["native", "https://cdn.example.org/a/clip.MP4"],
      ["native", "/media/uploads/0b7e.webm"],
      ["native", "https://cdn.example.org/clip.webm?token=1"],
      ["youtube", "https://www.youtube.com/embed/dQw4w9WgXcQ"],
      ["vimeo", "https://player.vimeo.com/video/76979871"],
    ] as const)
      expect(missingPlayer({ type, resolved_url: url }), url).toBeNull();
  });

  it("names a page that no player can play", () => {
    expect(
      missingPlayer({ type: "native", resolved_url: "https://www.dailymotion.com/video/x8abc" }),
    ).toMatch(/No player for this URL/);
  });
});
