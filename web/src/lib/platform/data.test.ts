import { describe, expect, it } from "vitest";
import type { Video } from "../types.ts";
import { impressionItem } from "./data.ts";

const video = {
  id: "00000000-0000-4000-8000-000000000001",
  external_id: "yt-1",
  title: "One",
  channel_name: "Chan",
  duration_seconds: 61,
  view_count: 5,
  thumbnail_url: null,
} as unknown as Video;

describe("impression items of HOME_FEED and RECOMMENDATIONS", () => {
  it("copies the propensity the feed response gave the video, for off-policy evaluation", () => {
    expect(impressionItem({ ...video, propensity: 0.125 }, 3)).toEqual({
      position: 3,
      videoId: "yt-1",
      title: "One",
      channelName: "Chan",
      duration: 61,
      viewCount: 5,
      thumbnailUrl: null,
      propensity: 0.125,
    });
    expect(impressionItem({ ...video, propensity: null }, 0).propensity).toBeNull();
  });

  it("leaves the field out for a video that came without one", () => {
    expect(impressionItem(video, 0)).not.toHaveProperty("propensity");
  });
});
