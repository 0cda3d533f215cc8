import { type Static, type TSchema, Type } from "@sinclair/typebox";
import type { EventType } from "./types.ts";

// Required payload fields per type, exactly as the spec's tables list them. Required fields are
// required and typed; extra fields are allowed (researchers add their own). Fields a video may not
// have (channel, category, ...) may be null.

const Num = Type.Number();
const Int = Type.Integer({ minimum: 0 });
const Str = Type.String();
const Bool = Type.Boolean();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const NullableNum = Type.Union([Type.Number(), Type.Null()]);

const payload = <P extends Record<string, TSchema>>(props: P) =>
  Type.Object(props, { additionalProperties: true });

const Size = Type.Object({ width: Num, height: Num }, { additionalProperties: true });

/** One item of HOME_FEED.videos and RECOMMENDATIONS.recommended. */
const ImpressionItem = Type.Object(
  {
    position: Int,
    videoId: Str,
    title: Str,
    channelName: Type.Optional(NullableStr),
    duration: Type.Optional(NullableNum),
    viewCount: Type.Optional(NullableNum),
    thumbnailUrl: Type.Optional(NullableStr),
    /** The probability the recommender placed the video with (the feed or related response's). */
    propensity: Type.Optional(NullableNum),
  },
  { additionalProperties: true },
);

/**
 * Latency parity (api.md, "Data quality and validity"): ms from the runtime asking for the list to
 * its cards shown (the frame after they render). Optional: runtimes before it sent none.
 */
const LatencyMs = Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 }));

const PlaybackPosition = payload({ currentTime: Num, duration: Num, progress: Num });

export const PAYLOADS = {
  SESSION_START: payload({
    sessionId: Str,
    startTime: Type.Union([Num, Str]),
    referrer: Str,
    initialUrl: Str,
    initialPageType: Str,
    environment: Type.Object(
      {
        viewport: Size,
        screen: Size,
        userAgent: Str,
        language: Str,
        platform: Str,
        timezone: Str,
        connection: Type.Optional(
          Type.Union([Type.Object({}, { additionalProperties: true }), Str, Type.Null()]),
        ),
      },
      { additionalProperties: true },
    ),
  }),
  SESSION_END: payload({ sessionId: Str }),
  PAGE_LOAD: payload({ url: Str, pageType: Str }),
  NAVIGATION: payload({ from: Str, to: Str, pageType: Str, dwellTimeMs: Num, dwellTimeSec: Num }),
  PAGE_EXIT: payload({ url: Str, pageType: Str, dwellTimeMs: Num, dwellTimeSec: Num }),
  VIDEO_META_CAPTURED: payload({
    videoId: Str,
    title: Str,
    channelName: NullableStr,
    category: NullableStr,
    viewCount: NullableNum,
    description: NullableStr,
    tags: Type.Array(Str),
    duration: NullableNum,
    thumbnailUrl: NullableStr,
  }),
  VIDEO_PLAY: payload({ currentTime: Num, duration: Num, playbackRate: Num }),
  VIDEO_PAUSE: payload({ currentTime: Num, duration: Num, watchedDuration: Num }),
  VIDEO_SEEK: payload({ from: Num, to: Num, seekDistance: Num, duration: Num }),
  VIDEO_ENDED: payload({ duration: Num, totalWatchedTime: Num, completionRate: Num }),
  VIDEO_PROGRESS: PlaybackPosition,
  VIDEO_WATCHED_1S: PlaybackPosition,
  VIDEO_WATCHED_5S: PlaybackPosition,
  VIDEO_BUFFERING: payload({ currentTime: Num, readyState: Int, networkState: Int }),
  PLAYBACK_RATE_CHANGE: payload({ newRate: Num, currentTime: Num }),
  VOLUME_CHANGE: payload({ volume: Num, previousVolume: Num, muted: Bool, previousMuted: Bool }),
  FULLSCREEN_CHANGE: payload({ isFullscreen: Bool }),
  HOME_FEED: payload({
    videoCount: Int,
    videos: Type.Array(ImpressionItem),
    latency_ms: LatencyMs,
  }),
  RECOMMENDATIONS: payload({
    currentVideoId: Str,
    recommendedCount: Int,
    recommended: Type.Array(ImpressionItem),
    latency_ms: LatencyMs,
  }),
  IMPRESSION: payload({}),
  FEED_CLICK: payload({}),
  LIKE: payload({ videoId: Str, timestamp: Type.Optional(Num) }),
  DISLIKE: payload({ videoId: Str }),
  VIDEO_CLICK: payload({
    clickedVideoId: Str,
    clickedTitle: Str,
    position: Int,
    fromVideoId: Str,
    context: Str,
  }),
  THUMBNAIL_HOVER: payload({
    videoId: Str,
    title: Str,
    position: Int,
    hoverDurationMs: Num,
    followed_by_click: Bool,
    context: Str,
  }),
  KEYBOARD_SHORTCUT: payload({ key: Str, action: Str, currentTime: Num, shiftKey: Bool, ctrlKey: Bool }),
  MOUSE_MOVEMENT: payload({
    positions: Type.Array(Type.Unknown(), { maxItems: 1000 }),
    samplingIntervalMs: Num,
    context: Str,
    duration: Num,
  }),
  SCROLL: payload({ scrollY: Num, scrollPercent: Num, maxScrollPercent: Num, pageHeight: Num }),
  VIEWPORT_VISIBILITY: payload({
    visibleItems: Type.Array(
      Type.Object(
        {
          videoId: Str,
          position: Int,
          visibilityRatio: Num,
          enterTime: Num,
          exitTime: Type.Optional(NullableNum),
        },
        { additionalProperties: true },
      ),
    ),
    context: Str,
  }),
  VISIBILITY_CHANGE: payload({ visible: Bool, visibilityState: Str }),
  WINDOW_FOCUS: payload({}),
  WINDOW_BLUR: payload({}),
  LAYOUT_CHANGE: payload({ from: Str, to: Str, context: Str }),
} as const satisfies Record<EventType, TSchema>;

export type Payloads = { [K in EventType]: Static<(typeof PAYLOADS)[K]> };
