import { isEventType } from "@feedlab/schemas/events/types.ts";
import type { StoredEvent } from "../../types.ts";

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === "string" ? v : null);
const clock = (seconds: number | null) => {
  if (seconds === null) return "";
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};
const pct = (ratio: number | null) => (ratio === null ? "" : `${Math.round(ratio * 100)}%`);

/** A one-line, human description of an event for the trajectory timeline. */
export function describeEvent(e: StoredEvent): string {
  const p = e.payload;
  const video = e.video_id ?? str(p.videoId) ?? "a video";
  const type = e.event_type;
  // A type this console does not know (a newer server's) is shown by its name.
  if (!isEventType(type)) return type;
  switch (type) {
    case "SESSION_START":
      return `Session started on ${str(p.initialPageType) ?? "a page"} (${str(p.initialUrl) ?? ""})`;
    case "SESSION_END":
      return "Session ended";
    case "PAGE_LOAD":
      return `Opened the ${str(p.pageType) ?? ""} page ${str(p.url) ?? ""}`.trim();
    case "NAVIGATION":
      return `Went from ${str(p.from) ?? "?"} to ${str(p.to) ?? "?"} after ${num(p.dwellTimeSec) ?? "?"} s`;
    case "PAGE_EXIT":
      return `Left the ${str(p.pageType) ?? ""} page after ${num(p.dwellTimeSec) ?? "?"} s`;
    case "VIDEO_META_CAPTURED":
      return `Watch page shows “${str(p.title) ?? video}”`;
    case "VIDEO_PLAY":
      return `Played ${video} at ${clock(num(p.currentTime))}`;
    case "VIDEO_PAUSE":
      return `Paused ${video} at ${clock(num(p.currentTime))}`;
    case "VIDEO_SEEK":
      return `Seeked ${video} from ${clock(num(p.from))} to ${clock(num(p.to))}`;
    case "VIDEO_ENDED":
      return `Finished ${video} (${pct(e.watch_ratio ?? num(p.completionRate))} watched)`;
    case "VIDEO_WATCHED_1S":
      return `Watched 1 s of ${video}`;
    case "VIDEO_WATCHED_5S":
      return `Watched 5 s of ${video}`;
    case "VIDEO_BUFFERING":
      return `Buffering ${video} at ${clock(num(p.currentTime))}`;
    case "PLAYBACK_RATE_CHANGE":
      return `Playback speed ${num(p.newRate) ?? "?"}×`;
    case "VOLUME_CHANGE":
      return p.muted === true ? "Muted" : `Volume ${pct(num(p.volume))}`;
    case "FULLSCREEN_CHANGE":
      return p.isFullscreen === true ? "Entered full screen" : "Left full screen";
    case "HOME_FEED":
      return `Feed showed ${num(p.videoCount) ?? "?"} videos`;
    case "RECOMMENDATIONS":
      return `Related list showed ${num(p.recommendedCount) ?? "?"} videos`;
    case "IMPRESSION":
      return `Saw ${video} at position ${e.position_in_feed ?? "?"}`;
    case "FEED_CLICK":
      return `Clicked ${video} at position ${e.position_in_feed ?? "?"} in the feed`;
    case "LIKE":
      return `Liked ${video}`;
    case "DISLIKE":
      return `Disliked ${video}`;
    case "VIDEO_CLICK":
      return `Clicked related “${str(p.clickedTitle) ?? str(p.clickedVideoId) ?? "?"}”`;
    case "THUMBNAIL_HOVER":
      return `Hovered ${video} for ${num(p.hoverDurationMs) ?? "?"} ms${p.followed_by_click === true ? ", then clicked" : ""}`;
    case "KEYBOARD_SHORTCUT":
      return `Pressed ${str(p.key) ?? "?"} (${str(p.action) ?? "?"})`;
    case "LAYOUT_CHANGE":
      return `Layout ${str(p.from) ?? "?"} → ${str(p.to) ?? "?"}`;
    // Left out of the trajectory (spec); shown by name should one come.
    case "VIDEO_PROGRESS":
    case "MOUSE_MOVEMENT":
    case "SCROLL":
    case "VIEWPORT_VISIBILITY":
    case "VISIBILITY_CHANGE":
    case "WINDOW_FOCUS":
    case "WINDOW_BLUR":
      return type;
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** Events grouped by session, in the order the sessions started. */
export function bySession(events: readonly StoredEvent[]): { sessionId: string; events: StoredEvent[] }[] {
  const groups = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const list = groups.get(e.session_id) ?? [];
    list.push(e);
    groups.set(e.session_id, list);
  }
  return [...groups].map(([sessionId, list]) => ({ sessionId, events: list }));
}
