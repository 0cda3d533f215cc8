import { describe, expect, it } from "vitest";
import type { WatchPlan } from "../watch.ts";
import { playbackTimeline } from "./playback.ts";

const plan = (over: Partial<WatchPlan>): WatchPlan => ({
  videoId: "v",
  durationSeconds: 20,
  reachesEnd: false,
  stopAtSecond: 12,
  actions: [],
  playSeconds: 12,
  liked: false,
  disliked: false,
  ...over,
});

const shape = (p: WatchPlan) => playbackTimeline("ext-1", p).map((e) => `${e.atMs} ${e.type}`);

describe("playback at human pace", () => {
  it("sends the marks and VIDEO_PROGRESS as the video plays, and a last pause where they leave", () => {
    expect(shape(plan({}))).toEqual([
      "0 VIDEO_PLAY",
      "1000 VIDEO_WATCHED_1S",
      "5000 VIDEO_WATCHED_5S",
      "5000 VIDEO_PROGRESS",
      "10000 VIDEO_PROGRESS",
      "12000 VIDEO_PAUSE",
    ]);
  });

  it("holds the wall clock through a pause, moves only the video's clock on a seek, and ends with VIDEO_ENDED", () => {
    const p = plan({
      reachesEnd: true,
      stopAtSecond: 20,
      actions: [
        { kind: "pause", atSecond: 2, forSeconds: 3 },
        { kind: "seek", atSecond: 4, toSecond: 15 },
        { kind: "like", atSecond: 16 },
      ],
    });
    expect(shape(p)).toEqual([
      "0 VIDEO_PLAY",
      "1000 VIDEO_WATCHED_1S",
      "2000 VIDEO_PAUSE",
      "5000 VIDEO_PLAY",
      "7000 VIDEO_SEEK",
      "8000 VIDEO_WATCHED_5S",
      "8000 VIDEO_PROGRESS",
      "8000 LIKE",
      "12000 VIDEO_ENDED",
    ]);
  });
});
