/** The spec's eight playback types: every one carries `video_id` on the row (`VIDEO_ID_REQUIRED`). */
const PLAYBACK_TYPES = [
  "VIDEO_PLAY",
  "VIDEO_PAUSE",
  "VIDEO_SEEK",
  "VIDEO_ENDED",
  "VIDEO_PROGRESS",
  "VIDEO_WATCHED_1S",
  "VIDEO_WATCHED_5S",
  "VIDEO_BUFFERING",
] as const;

/**
 * The 33 event types of the spec ("Event types (33)"), grouped as the spec groups them. Adding a
 * type: add it here with its payload schema (payloads.ts); if it is high-frequency or flushes
 * immediately, add it to the matching batching set below. Promoted columns need a migration;
 * anything else goes inside `payload`.
 */
export const EVENT_TYPES = [
  // Session lifecycle (2)
  "SESSION_START",
  "SESSION_END",
  // Page navigation (3)
  "PAGE_LOAD",
  "NAVIGATION",
  "PAGE_EXIT",
  // Video metadata (1)
  "VIDEO_META_CAPTURED",
  // Playback (8)
  ...PLAYBACK_TYPES,
  // Player controls (3)
  "PLAYBACK_RATE_CHANGE",
  "VOLUME_CHANGE",
  "FULLSCREEN_CHANGE",
  // Impressions (3)
  "HOME_FEED",
  "RECOMMENDATIONS",
  "IMPRESSION",
  // User interactions (6)
  "FEED_CLICK",
  "LIKE",
  "DISLIKE",
  "VIDEO_CLICK",
  "THUMBNAIL_HOVER",
  "KEYBOARD_SHORTCUT",
  // High-frequency telemetry (3)
  "MOUSE_MOVEMENT",
  "SCROLL",
  "VIEWPORT_VISIBILITY",
  // Tab and window state (3)
  "VISIBILITY_CHANGE",
  "WINDOW_FOCUS",
  "WINDOW_BLUR",
  // Layout (1)
  "LAYOUT_CHANGE",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const set = <T extends EventType>(...types: T[]): ReadonlySet<EventType> => new Set<EventType>(types);

/** Legacy names the contract no longer accepts (spec: Versioning). */
export const RETIRED_EVENT_TYPES: ReadonlySet<string> = new Set(["VIDEO_START", "VIDEO_END"]);

/** Batching (part of the contract, not configurable): high-frequency buffer, 2 s or 50 events. */
export const HIGH_FREQUENCY_TYPES = set("MOUSE_MOVEMENT", "SCROLL", "VIEWPORT_VISIBILITY", "VIDEO_PROGRESS");
/** Batching: flushed as soon as the event enters the buffer. */
export const IMMEDIATE_TYPES = set("VIDEO_ENDED", "LIKE", "DISLIKE", "SESSION_END", "PAGE_EXIT");

/** Flush rules of the three buffers (spec: Batching; Limits). */
const BATCHING = {
  normal: { maxAgeMs: 5000, maxEvents: 20 },
  highFrequency: { maxAgeMs: 2000, maxEvents: 50 },
} as const;

export type BufferName = "normal" | "highFrequency" | "immediate";

/**
 * When a buffer that now holds `count` events is flushed (spec: Batching): at once for the immediate
 * buffer and at a buffer's size limit; else its age limit after its first event.
 */
export function flushRule(buffer: BufferName, count: number): "now" | { readonly afterMs: number } {
  if (buffer === "immediate") return "now";
  const limit = BATCHING[buffer];
  return count >= limit.maxEvents ? "now" : { afterMs: limit.maxAgeMs };
}

/** Which buffer an event type travels in. */
export function bufferOf(type: EventType): BufferName {
  if (IMMEDIATE_TYPES.has(type)) return "immediate";
  if (HIGH_FREQUENCY_TYPES.has(type)) return "highFrequency";
  return "normal";
}

/**
 * Types that must carry `video_id` on the row: the spec's eight playback types ("All carry video_id on
 * the row"). The player controls and the card interactions carry it when the client has it, and are
 * accepted without it, as the spec leaves it optional for them.
 */
export const VIDEO_ID_REQUIRED = set(...PLAYBACK_TYPES);

/** Types whose `video_id` the surfaces send whenever they know it, though the spec does not require it. */
export const VIDEO_ID_EXPECTED = set(
  "PLAYBACK_RATE_CHANGE",
  "VOLUME_CHANGE",
  "FULLSCREEN_CHANGE",
  "IMPRESSION",
  "FEED_CLICK",
  "VIDEO_CLICK",
  "THUMBNAIL_HOVER",
);

/** Types that must carry `position_in_feed` on the row. */
export const POSITION_REQUIRED = set("IMPRESSION", "FEED_CLICK");

/** Types the trajectory view leaves out (spec: Backend consumers of events). */
export const TRAJECTORY_EXCLUDED = set(
  "MOUSE_MOVEMENT",
  "SCROLL",
  "VIEWPORT_VISIBILITY",
  "VIDEO_PROGRESS",
  "VISIBILITY_CHANGE",
  "WINDOW_FOCUS",
  "WINDOW_BLUR",
);

/** Training weights of the learned model (spec: Backend consumers of events). */
export const INTERACTION_WEIGHTS = {
  VIDEO_WATCHED_1S: 1.0,
  LIKE: 3.0,
  /** Only when the watch ratio is above ENDED_MIN_RATIO. */
  VIDEO_ENDED: 2.0,
} as const;
export const ENDED_MIN_RATIO = 0.5;

/** Types that mark a video as watched for exclusion (at least 1 s played, or ended). */
export const WATCHED_TYPES = set("VIDEO_WATCHED_1S", "VIDEO_ENDED");

export const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

/** A comma-separated list of event types (an export's `types`, `feedlab tail --type`): the names, and those unknown. */
export function parseEventTypes(lists: string | readonly string[]): { types: string[]; unknown: string[] } {
  const types = (typeof lists === "string" ? [lists] : lists)
    .flatMap((l) => l.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  return { types, unknown: types.filter((t) => !isEventType(t)) };
}
