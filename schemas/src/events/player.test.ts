import { describe, expect, it } from "vitest";
import { playbackSequence } from "./player.ts";

describe("the player contract's sequence of a planned watch", () => {
  it("sends play, the 1 s and 5 s marks, progress every 5 s played, a pause, a seek back and a like, then the end", () => {
    const events = playbackSequence(
      "ext-1",
      {
        durationSeconds: 12,
        actions: [
          { kind: "pause", atSecond: 3, forSeconds: 10 },
          { kind: "seek", atSecond: 6, toSecond: 4 },
          { kind: "like", atSecond: 8 },
        ],
        stopAtSecond: 12,
        reachesEnd: true,
      },
      "youtube",
    );
    // Wall time stands still for a seek and runs through the pause; the video's clock does the opposite.
    expect(events.map((e) => `${e.atMs} ${e.type} ${e.action ?? "-"}`)).toEqual([
      "0 VIDEO_PLAY play",
      "1000 VIDEO_WATCHED_1S play_1s",
      "3000 VIDEO_PAUSE -",
      "13000 VIDEO_PLAY pause",
      "15000 VIDEO_WATCHED_5S play_5s",
      "15000 VIDEO_PROGRESS keep_playing",
      "16000 VIDEO_SEEK seek",
      "20000 VIDEO_PROGRESS keep_playing",
      "20000 LIKE like",
      "24000 VIDEO_ENDED reach_end",
    ]);
    const of = (type: string) => events.filter((e) => e.type === type);
    expect(of("VIDEO_SEEK")[0]?.payload).toEqual({
      from: 6,
      to: 4,
      seekDistance: -2,
      duration: 12,
      source: "youtube",
    });
    expect(of("VIDEO_WATCHED_5S")[0]).toMatchObject({
      payload: { currentTime: 5, duration: 12, progress: 0.417, source: "youtube" },
      fields: { video_id: "ext-1", watch_duration: 5, watch_ratio: 0.417 },
    });
    expect(of("VIDEO_PROGRESS").map((e) => e.payload)).toEqual([
      { currentTime: 5, duration: 12, progress: 0.417, watchedDuration: 5, source: "youtube" },
      { currentTime: 8, duration: 12, progress: 0.667, watchedDuration: 10, source: "youtube" },
    ]);
    expect(of("LIKE")[0]?.payload).toEqual({ videoId: "ext-1", timestamp: 8 });
    // 14 s played of a 12 s video (2 s twice, after the seek back): the share is at most 1.
    expect(of("VIDEO_ENDED")[0]).toMatchObject({
      payload: { duration: 12, totalWatchedTime: 14, completionRate: 1, source: "youtube" },
      fields: { video_id: "ext-1", watch_ratio: 1, watch_duration: 14 },
    });
  });

  it("ends a watch stopped early with a pause, and a watch of nothing with play alone", () => {
    const stopped = playbackSequence("v", {
      durationSeconds: 60,
      actions: [],
      stopAtSecond: 2.5,
      reachesEnd: false,
    });
    expect(stopped.map((e) => e.type)).toEqual(["VIDEO_PLAY", "VIDEO_WATCHED_1S", "VIDEO_PAUSE"]);
    expect(stopped.at(-1)?.payload).toEqual({
      currentTime: 2.5,
      duration: 60,
      watchedDuration: 2.5,
      source: "native",
    });
    const none = playbackSequence("v", {
      durationSeconds: 60,
      actions: [],
      stopAtSecond: 0,
      reachesEnd: false,
    });
    expect(none.map((e) => e.type)).toEqual(["VIDEO_PLAY"]);
  });

  it("gives no share while the video's length is unknown", () => {
    const events = playbackSequence("v", {
      durationSeconds: 0,
      actions: [],
      stopAtSecond: 2,
      reachesEnd: true,
    });
    expect(events.find((e) => e.type === "VIDEO_WATCHED_1S")?.fields).toEqual({
      video_id: "v",
      watch_duration: 1,
    });
    expect(events.at(-1)).toMatchObject({
      type: "VIDEO_ENDED",
      payload: { completionRate: 0 },
      fields: { watch_ratio: 0 },
    });
  });
});
