import type { Payloads } from "./payloads.ts";
import { type EventType, POSITION_REQUIRED, VIDEO_ID_EXPECTED, VIDEO_ID_REQUIRED } from "./types.ts";

/**
 * A valid payload of every event type, with realistic values. Used by tests, the fuzzer and the
 * benchmarks; also a reference for anyone writing a client.
 */
export const EXAMPLE_PAYLOADS: { readonly [K in EventType]: Payloads[K] } = {
  SESSION_START: {
    sessionId: "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11",
    startTime: 1795219900000,
    referrer: "https://app.prolific.com/",
    initialUrl: "https://study.example.org/",
    initialPageType: "feed",
    environment: {
      viewport: { width: 1280, height: 720 },
      screen: { width: 1920, height: 1080 },
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0",
      language: "en-GB",
      platform: "Linux x86_64",
      timezone: "Europe/Berlin",
      connection: { effectiveType: "4g", downlink: 10 },
    },
  },
  SESSION_END: { sessionId: "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11" },
  PAGE_LOAD: { url: "https://study.example.org/", pageType: "feed" },
  NAVIGATION: { from: "/", to: "/watch/abc", pageType: "feed", dwellTimeMs: 5230, dwellTimeSec: 5.23 },
  PAGE_EXIT: {
    url: "https://study.example.org/watch/abc",
    pageType: "watch",
    dwellTimeMs: 42000,
    dwellTimeSec: 42,
  },
  VIDEO_META_CAPTURED: {
    videoId: "demo-sourdough-01",
    title: "Sourdough Basics",
    channelName: "Crumb Lab",
    category: "Howto & Style",
    viewCount: 120345,
    description: "Your first loaf in 24 hours.",
    tags: ["baking", "sourdough"],
    duration: 31,
    thumbnailUrl: "/media/demo/sourdough-basics.jpg",
  },
  VIDEO_PLAY: { currentTime: 0, duration: 31, playbackRate: 1 },
  VIDEO_PAUSE: { currentTime: 12.4, duration: 31, watchedDuration: 12.4 },
  VIDEO_SEEK: { from: 12.4, to: 20, seekDistance: 7.6, duration: 31 },
  VIDEO_ENDED: { duration: 31, totalWatchedTime: 29.5, completionRate: 0.95 },
  VIDEO_PROGRESS: { currentTime: 10, duration: 31, progress: 0.32 },
  VIDEO_WATCHED_1S: { currentTime: 1.02, duration: 31, progress: 0.033 },
  VIDEO_WATCHED_5S: { currentTime: 5.01, duration: 31, progress: 0.16 },
  VIDEO_BUFFERING: { currentTime: 3.2, readyState: 2, networkState: 2 },
  PLAYBACK_RATE_CHANGE: { newRate: 1.5, currentTime: 8 },
  VOLUME_CHANGE: { volume: 0.4, previousVolume: 1, muted: false, previousMuted: false },
  FULLSCREEN_CHANGE: { isFullscreen: true },
  HOME_FEED: {
    videoCount: 2,
    videos: [
      {
        position: 0,
        videoId: "demo-sourdough-01",
        title: "Sourdough Basics",
        channelName: "Crumb Lab",
        duration: 31,
      },
      { position: 1, videoId: "demo-lisbon-01", title: "48 Hours in Lisbon", viewCount: 5400 },
    ],
    latency_ms: 182,
  },
  RECOMMENDATIONS: {
    currentVideoId: "demo-sourdough-01",
    recommendedCount: 1,
    recommended: [{ position: 0, videoId: "demo-lisbon-01", title: "48 Hours in Lisbon" }],
    latency_ms: 41,
  },
  IMPRESSION: {},
  FEED_CLICK: {},
  LIKE: { videoId: "demo-sourdough-01", timestamp: 14.2 },
  DISLIKE: { videoId: "demo-sourdough-01" },
  VIDEO_CLICK: {
    clickedVideoId: "demo-lisbon-01",
    clickedTitle: "48 Hours in Lisbon",
    position: 0,
    fromVideoId: "demo-sourdough-01",
    context: "related",
  },
  THUMBNAIL_HOVER: {
    videoId: "demo-lisbon-01",
    title: "48 Hours in Lisbon",
    position: 1,
    hoverDurationMs: 850,
    followed_by_click: false,
    context: "feed",
  },
  KEYBOARD_SHORTCUT: { key: "k", action: "toggle_play", currentTime: 4.2, shiftKey: false, ctrlKey: false },
  MOUSE_MOVEMENT: {
    positions: [
      { x: 10, y: 20, t: 0 },
      { x: 14, y: 22, t: 100 },
    ],
    samplingIntervalMs: 100,
    context: "feed",
    duration: 2000,
  },
  SCROLL: { scrollY: 640, scrollPercent: 42.5, maxScrollPercent: 42.5, pageHeight: 2400 },
  VIEWPORT_VISIBILITY: {
    visibleItems: [
      { videoId: "demo-sourdough-01", position: 0, visibilityRatio: 1, enterTime: 1795219901000 },
    ],
    context: "feed",
  },
  VISIBILITY_CHANGE: { visible: false, visibilityState: "hidden" },
  WINDOW_FOCUS: {},
  WINDOW_BLUR: {},
  LAYOUT_CHANGE: { from: "grid", to: "list", context: "settings" },
};

/** Row fields a valid event of the type needs besides its payload. */
export function exampleRowFields(type: EventType): { video_id?: string; position_in_feed?: number } {
  return {
    ...(VIDEO_ID_REQUIRED.has(type) || VIDEO_ID_EXPECTED.has(type) ? { video_id: "demo-sourdough-01" } : {}),
    ...(POSITION_REQUIRED.has(type) ? { position_in_feed: 3 } : {}),
  };
}
