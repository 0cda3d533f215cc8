import { EVENT_TYPES, type EventType } from "./types.ts";

/**
 * What a participant (or the page by itself) does that makes a surface emit an event. Each event
 * type has exactly one; a journey is the set of actions that happened in it.
 */
export const JOURNEY_ACTIONS = [
  "start_session",
  "end_session",
  "open_page",
  "follow_link",
  "leave_page",
  "open_video",
  "load_feed",
  "load_related",
  "see_card",
  "hover_card",
  "click_feed_card",
  "click_related_card",
  "play",
  "play_1s",
  "play_5s",
  "keep_playing",
  "pause",
  "seek",
  "reach_end",
  "stall",
  "change_rate",
  "change_volume",
  "toggle_fullscreen",
  "press_shortcut",
  "like",
  "dislike",
  "move_pointer",
  "scroll",
  "stay_on_cards",
  "switch_tab",
  "switch_window",
  "change_layout",
] as const;

export type JourneyAction = (typeof JOURNEY_ACTIONS)[number];

/** Who emits an event type, as the spec's emitter column names it. */
type Emitter =
  | "EventProvider"
  | "Feed/Watch surface"
  | "FeedSurface"
  | "WatchSurface"
  | "VideoSurface"
  | "useLikes()"
  | "manual";

interface CatalogEntry {
  /** The spec's emitter: the surface primitive that sends it. */
  readonly emitter: Emitter;
  /** The action that makes it emit. */
  readonly on: JourneyAction;
  /**
   * Only a real browser produces it (a pointer, a tab, a window, a stalled network): a participant
   * driven over HTTP never does the action, so it is never expected of one.
   */
  readonly browserOnly?: true;
}

/**
 * The contract's catalog (spec: "Event types (33)", the emitter column): which surface emits each
 * type on which action. Dry runs (issue 36) expect of a journey exactly the types whose action it
 * performed, so a missing type points at a page that does not emit what the contract says.
 */
const EVENT_CATALOGUE: { readonly [K in EventType]: CatalogEntry } = {
  SESSION_START: { emitter: "EventProvider", on: "start_session" },
  SESSION_END: { emitter: "EventProvider", on: "end_session" },
  PAGE_LOAD: { emitter: "Feed/Watch surface", on: "open_page" },
  NAVIGATION: { emitter: "Feed/Watch surface", on: "follow_link" },
  PAGE_EXIT: { emitter: "Feed/Watch surface", on: "leave_page" },
  VIDEO_META_CAPTURED: { emitter: "WatchSurface", on: "open_video" },
  VIDEO_PLAY: { emitter: "VideoSurface", on: "play" },
  VIDEO_PAUSE: { emitter: "VideoSurface", on: "pause" },
  VIDEO_SEEK: { emitter: "VideoSurface", on: "seek" },
  VIDEO_ENDED: { emitter: "VideoSurface", on: "reach_end" },
  VIDEO_PROGRESS: { emitter: "VideoSurface", on: "keep_playing" },
  VIDEO_WATCHED_1S: { emitter: "VideoSurface", on: "play_1s" },
  VIDEO_WATCHED_5S: { emitter: "VideoSurface", on: "play_5s" },
  VIDEO_BUFFERING: { emitter: "VideoSurface", on: "stall", browserOnly: true },
  PLAYBACK_RATE_CHANGE: { emitter: "VideoSurface", on: "change_rate" },
  VOLUME_CHANGE: { emitter: "VideoSurface", on: "change_volume" },
  FULLSCREEN_CHANGE: { emitter: "VideoSurface", on: "toggle_fullscreen" },
  HOME_FEED: { emitter: "FeedSurface", on: "load_feed" },
  RECOMMENDATIONS: { emitter: "WatchSurface", on: "load_related" },
  IMPRESSION: { emitter: "VideoSurface", on: "see_card" },
  FEED_CLICK: { emitter: "VideoSurface", on: "click_feed_card" },
  LIKE: { emitter: "useLikes()", on: "like" },
  DISLIKE: { emitter: "useLikes()", on: "dislike" },
  VIDEO_CLICK: { emitter: "VideoSurface", on: "click_related_card" },
  THUMBNAIL_HOVER: { emitter: "VideoSurface", on: "hover_card" },
  KEYBOARD_SHORTCUT: { emitter: "VideoSurface", on: "press_shortcut", browserOnly: true },
  MOUSE_MOVEMENT: { emitter: "Feed/Watch surface", on: "move_pointer", browserOnly: true },
  SCROLL: { emitter: "Feed/Watch surface", on: "scroll" },
  VIEWPORT_VISIBILITY: { emitter: "Feed/Watch surface", on: "stay_on_cards" },
  VISIBILITY_CHANGE: { emitter: "Feed/Watch surface", on: "switch_tab", browserOnly: true },
  WINDOW_FOCUS: { emitter: "Feed/Watch surface", on: "switch_window", browserOnly: true },
  WINDOW_BLUR: { emitter: "Feed/Watch surface", on: "switch_window", browserOnly: true },
  LAYOUT_CHANGE: { emitter: "manual", on: "change_layout" },
};

/** The event types a journey's actions make the pages emit, in the contract's order. */
export function expectedEventTypes(actions: Iterable<JourneyAction>): EventType[] {
  const done = new Set(actions);
  return EVENT_TYPES.filter((t) => done.has(EVENT_CATALOGUE[t].on));
}

/** The event types an action makes the pages emit (one or more; the catalog's inverse). */
export function eventTypesOn(action: JourneyAction): EventType[] {
  return EVENT_TYPES.filter((t) => EVENT_CATALOGUE[t].on === action);
}
