// What both the projection and its erasure count, in one place.

/** The events evaluation counts (spec: the evaluation reader), and the column each adds to. */
export const EVALUATION_COUNTS = {
  IMPRESSION: "impressions",
  FEED_CLICK: "feed_clicks",
  VIDEO_PLAY: "plays",
  VIDEO_ENDED: "completions",
  LIKE: "likes",
} as const;
