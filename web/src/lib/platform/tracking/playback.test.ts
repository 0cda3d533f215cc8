import { playbackSequence } from "@feedlab/schemas/events/player.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type MediaState, PlaybackTracker } from "./playback.ts";
import type { RowFields } from "./tracker.ts";

interface Sent {
  type: string;
  payload: Record<string, unknown>;
  fields: RowFields;
}

/** A media element simulated in media time: `advance(ms)` plays at the rate while not paused. */
function fakeMedia(duration = 30) {
  const state: { -readonly [K in keyof MediaState]: MediaState[K] } = {
    currentTime: 0,
    duration,
    paused: true,
    ended: false,
    playbackRate: 1,
    volume: 1,
    muted: false,
    readyState: 4,
    networkState: 1,
  };
  return state;
}

function setup(source: "native" | "youtube" = "native", duration = 30) {
  const media = fakeMedia(duration);
  const sent: Sent[] = [];
  const tracker = new PlaybackTracker({
    videoId: "ext-1",
    source,
    read: () => media,
    emit: (type, payload, fields) => sent.push({ type, payload, fields }),
    maxTickGapSec: source === "native" ? 1 : 1.25,
  });
  tracker.ready();
  /** Plays `ms` of wall time, ticking every `tickMs`. */
  const play = (ms: number, tickMs = 50) => {
    for (let t = 0; t < ms; t += tickMs) {
      if (!media.paused)
        media.currentTime = Math.min(
          media.duration,
          media.currentTime + (tickMs / 1000) * media.playbackRate,
        );
      vi.advanceTimersByTime(tickMs);
      tracker.tick();
    }
  };
  const types = () => sent.map((s) => s.type);
  return { media, sent, tracker, play, types };
}

describe("the playback tracker derives the spec's playback events", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 21, 9, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("emits VIDEO_PLAY, WATCHED_1S at 1 s and WATCHED_5S at 5 s of played time, with the promoted columns", () => {
    const { media, sent, tracker, play, types } = setup();
    media.paused = false;
    tracker.play();
    expect(sent[0]).toEqual({
      type: "VIDEO_PLAY",
      payload: { currentTime: 0, duration: 30, playbackRate: 1, source: "native" },
      fields: { video_id: "ext-1" },
    });
    play(950);
    expect(types()).toEqual(["VIDEO_PLAY"]);
    play(50);
    expect(types()).toEqual(["VIDEO_PLAY", "VIDEO_WATCHED_1S"]);
    expect(sent[1]).toEqual({
      type: "VIDEO_WATCHED_1S",
      payload: { currentTime: 1, duration: 30, progress: 0.033, source: "native" },
      fields: { video_id: "ext-1", watch_duration: 1, watch_ratio: 0.033 },
    });
    play(4000);
    expect(types()).toContain("VIDEO_WATCHED_5S");
    expect(sent.find((s) => s.type === "VIDEO_WATCHED_5S")?.fields).toMatchObject({ watch_duration: 5 });
  });

  it("waits for WATCHED_1S until watched time reaches 1 s to the millisecond, never reporting less", () => {
    const { media, sent, tracker, types } = setup();
    media.paused = false;
    tracker.play();
    // Frame-sized steps whose sum falls just short of 1 s (0.999 s), as a real player's can.
    for (const step of [0.333, 0.333, 0.333]) {
      media.currentTime += step;
      tracker.tick();
    }
    expect(types()).toEqual(["VIDEO_PLAY"]);
    media.currentTime += 0.001;
    tracker.tick();
    expect(sent.find((s) => s.type === "VIDEO_WATCHED_1S")?.fields.watch_duration).toBe(1);
  });

  it("emits VIDEO_PROGRESS every 5 s while playing, and not while paused", () => {
    const { media, tracker, play, types } = setup();
    media.paused = false;
    tracker.play();
    play(4950);
    expect(types().filter((t) => t === "VIDEO_PROGRESS")).toHaveLength(0);
    play(50);
    expect(types().filter((t) => t === "VIDEO_PROGRESS")).toHaveLength(1);
    play(5000);
    expect(types().filter((t) => t === "VIDEO_PROGRESS")).toHaveLength(2);
    media.paused = true;
    tracker.pause();
    vi.advanceTimersByTime(20_000);
    expect(types().filter((t) => t === "VIDEO_PROGRESS")).toHaveLength(2);
  });

  it("counts a seek as a VIDEO_SEEK and not as watched time, so skipping ahead does not reach the thresholds", () => {
    const { media, sent, tracker, play, types } = setup();
    media.paused = false;
    tracker.play();
    play(500);
    tracker.seeking();
    media.currentTime = 20;
    tracker.seeked();
    expect(sent.at(-1)).toEqual({
      type: "VIDEO_SEEK",
      payload: { from: 0.5, to: 20, seekDistance: 19.5, duration: 30, source: "native" },
      fields: { video_id: "ext-1" },
    });
    play(400);
    expect(types()).not.toContain("VIDEO_WATCHED_1S");
    expect(tracker.watchedSeconds).toBeCloseTo(0.9, 5);
  });

  it("keeps a seek whose new position a tick read before the seeking event arrived", () => {
    const { media, sent, tracker, play } = setup();
    media.paused = false;
    tracker.play();
    play(2000);
    // The element reports the target position and seeking=true before its "seeking" event fires.
    (media as { seeking?: boolean }).seeking = true;
    media.currentTime = 7;
    tracker.tick();
    tracker.seeking();
    (media as { seeking?: boolean }).seeking = false;
    tracker.seeked();
    expect(sent.at(-1)).toMatchObject({ type: "VIDEO_SEEK", payload: { from: 2, to: 7, seekDistance: 5 } });
    expect(tracker.watchedSeconds).toBeCloseTo(2, 5);
  });

  it("emits WATCHED thresholds once per source: a replay after the end does not repeat them", () => {
    const { media, tracker, play, types } = setup("native", 6);
    media.paused = false;
    tracker.play();
    play(6000);
    media.paused = true;
    media.ended = true;
    tracker.pause();
    tracker.ended();
    media.ended = false;
    media.currentTime = 0;
    media.paused = false;
    tracker.play();
    play(6000);
    expect(types().filter((t) => t === "VIDEO_WATCHED_1S")).toHaveLength(1);
    expect(types().filter((t) => t === "VIDEO_WATCHED_5S")).toHaveLength(1);
    expect(types().filter((t) => t === "VIDEO_PAUSE")).toHaveLength(0);
    expect(types().filter((t) => t === "VIDEO_PLAY")).toHaveLength(2);
  });

  it("reports VIDEO_ENDED with totalWatchedTime, completionRate and the promoted watch_ratio and watch_duration", () => {
    const { media, sent, tracker, play } = setup("native", 10);
    media.paused = false;
    tracker.play();
    play(2000);
    tracker.seeking();
    media.currentTime = 8;
    tracker.seeked();
    play(2000);
    media.paused = true;
    media.ended = true;
    tracker.ended();
    expect(sent.at(-1)).toEqual({
      type: "VIDEO_ENDED",
      payload: { duration: 10, totalWatchedTime: 4, completionRate: 0.4, source: "native" },
      fields: { video_id: "ext-1", watch_ratio: 0.4, watch_duration: 4 },
    });
  });

  it("reports VIDEO_PAUSE with watchedDuration, and a playing video left by its page as paused", () => {
    const { media, sent, tracker, play } = setup();
    media.paused = false;
    tracker.play();
    play(1500);
    media.paused = true;
    tracker.pause();
    expect(sent.at(-1)).toMatchObject({
      type: "VIDEO_PAUSE",
      payload: { currentTime: 1.5, duration: 30, watchedDuration: 1.5, source: "native" },
    });
    media.paused = false;
    tracker.play();
    play(500);
    tracker.dispose();
    expect(sent.at(-1)).toMatchObject({
      type: "VIDEO_PAUSE",
      payload: { watchedDuration: 2, reason: "page_exit" },
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("reports buffering, rate changes, fullscreen and keyboard shortcuts with their payloads", () => {
    const { media, sent, tracker } = setup();
    media.currentTime = 3.2;
    media.readyState = 2;
    media.networkState = 2;
    tracker.waiting();
    media.playbackRate = 1.5;
    tracker.rateChanged();
    tracker.rateChanged();
    tracker.fullscreen(true);
    tracker.shortcut("k", "toggle_play", { shiftKey: false, ctrlKey: false });
    expect(sent.map((s) => [s.type, s.payload])).toEqual([
      ["VIDEO_BUFFERING", { currentTime: 3.2, readyState: 2, networkState: 2, source: "native" }],
      ["PLAYBACK_RATE_CHANGE", { newRate: 1.5, currentTime: 3.2, source: "native" }],
      ["FULLSCREEN_CHANGE", { isFullscreen: true, source: "native" }],
      [
        "KEYBOARD_SHORTCUT",
        {
          key: "k",
          action: "toggle_play",
          currentTime: 3.2,
          shiftKey: false,
          ctrlKey: false,
          source: "native",
        },
      ],
    ]);
  });

  it("reports a volume slider drag as one VOLUME_CHANGE with the values before it", () => {
    const { media, sent, tracker } = setup("youtube");
    for (const v of [0.9, 0.8, 0.7, 0.6]) {
      media.volume = v;
      tracker.volumeChanged();
      vi.advanceTimersByTime(50);
    }
    vi.advanceTimersByTime(250);
    media.muted = true;
    tracker.volumeChanged();
    vi.advanceTimersByTime(250);
    expect(sent.map((s) => s.payload)).toEqual([
      { volume: 0.6, previousVolume: 1, muted: false, previousMuted: false, source: "youtube" },
      { volume: 0.6, previousVolume: 0.6, muted: true, previousMuted: false, source: "youtube" },
    ]);
  });

  it("sends for a watch what the player contract's sequence of it holds, so simulated participants send what real ones do", () => {
    const { media, sent, tracker, play } = setup("native", 12);
    media.paused = false;
    tracker.play();
    play(12_000);
    media.ended = true;
    media.paused = true;
    tracker.ended();
    const contract = playbackSequence("ext-1", {
      durationSeconds: 12,
      actions: [],
      stopAtSecond: 12,
      reachesEnd: true,
    });
    expect(sent).toEqual(contract.map((e) => ({ type: e.type, payload: e.payload, fields: e.fields })));
  });
});
