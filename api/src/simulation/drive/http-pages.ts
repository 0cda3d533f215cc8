import type { EventType, JourneyAction, Video } from "@feedlab/schemas";
import { playbackSequence, type SequencedEvent } from "@feedlab/schemas/events/player.ts";
import { videoMeta } from "@feedlab/schemas/events/video-meta.ts";
import type { Card } from "../browse.ts";
import type { WatchPlan } from "../watch.ts";
import type { EventSender, RowFields } from "./event-sender.ts";

// What the participant runtime's surfaces send for one page action, over HTTP (issue 36).

/** Cards a page shows without scrolling; going further down is a SCROLL. */
const CARDS_ABOVE_FOLD = 4;

/** Most cards a feed or related request asks for (the participant pages' page size). */
export const PAGE_SIZE = 20;

/** Surveys answered in a row at one point at most (a journey that meets more calls it a loop). */
export const MAX_SURVEYS_IN_A_ROW = 5;

export const cardOf = (v: Video, position: number): Card => ({
  video: { id: v.id, category: v.category, tags: v.tags, duration_seconds: v.duration_seconds },
  position,
});

export const listItem = (v: Video, position: number) => ({
  position,
  videoId: v.external_id,
  title: v.title,
  channelName: v.channel_name,
  duration: v.duration_seconds,
  viewCount: v.view_count,
  thumbnailUrl: v.thumbnail_url,
});

export const dwell = (ms: number) => ({
  dwellTimeMs: Math.round(ms),
  dwellTimeSec: Math.round(ms / 10) / 100,
});

/** IMPRESSION for each card seen (down to where the participant scrolled), SCROLL past the fold. */
export async function seeCards(
  events: EventSender,
  items: readonly Video[],
  scrolledTo: number | null,
  context: "feed" | "related",
  dwellMs: number,
  act: (...a: JourneyAction[]) => void,
): Promise<void> {
  const last = Math.min(items.length - 1, Math.max(scrolledTo ?? 0, CARDS_ABOVE_FOLD - 1));
  for (let p = 0; p <= last; p++) {
    const v = items[p] as Video;
    await events.track("IMPRESSION", { context }, { video_id: v.external_id, position_in_feed: p });
  }
  act("see_card");
  if (dwellMs >= 3000) {
    await events.track("VIEWPORT_VISIBILITY", {
      visibleItems: items.slice(0, last + 1).map((v, position) => ({
        videoId: v.external_id,
        position,
        visibilityRatio: 1,
        enterTime: Date.now() - dwellMs,
      })),
      context: context === "feed" ? "feed" : "watch",
    });
    act("stay_on_cards");
  }
  if ((scrolledTo ?? 0) >= CARDS_ABOVE_FOLD) {
    const share = Math.min(100, Math.round(((scrolledTo ?? 0) / Math.max(1, items.length - 1)) * 100));
    await events.track("SCROLL", {
      scrollY: (scrolledTo ?? 0) * 240,
      scrollPercent: share,
      maxScrollPercent: share,
      pageHeight: items.length * 240 + 400,
    });
    act("scroll");
  }
}

export async function leave(events: EventSender, from: string, to: string, pageType: string, ms: number) {
  await events.track("NAVIGATION", { from, to, pageType, ...dwell(ms) });
  await events.track("PAGE_EXIT", { url: from, pageType, ...dwell(ms) });
}

/** The playback events of a plan, in the order a player sends them (schemas' player contract). */
export async function play(
  events: EventSender,
  video: Video,
  plan: WatchPlan,
  act: (...a: JourneyAction[]) => void,
): Promise<void> {
  for (const e of playbackSequence(video.external_id, plan, video.type)) {
    await trackSequenced(events, e);
    if (e.action) act(e.action);
  }
}

/** Buffers one event of a playback sequence with the sender. */
export const trackSequenced = (events: EventSender, e: SequencedEvent): Promise<void> =>
  (events.track as (type: EventType, payload: unknown, fields: RowFields) => Promise<void>)(
    e.type,
    e.payload,
    e.fields,
  );

/**
 * SESSION_START as the runtime sends it on a session's first page (the feed), from a desktop browser
 * that says what it is (`userAgent`).
 */
export function trackSessionStart(events: EventSender, sessionId: string, userAgent: string): Promise<void> {
  return events.track("SESSION_START", {
    sessionId,
    startTime: Date.now(),
    referrer: "",
    initialUrl: "/",
    initialPageType: "feed",
    environment: {
      viewport: { width: 1280, height: 800 },
      screen: { width: 1920, height: 1080 },
      userAgent,
      language: "en",
      platform: "simulation",
      timezone: "UTC",
    },
  });
}

/** THUMBNAIL_HOVER of one hover over a feed card. */
export function trackHover(
  events: EventSender,
  v: Video,
  h: { readonly position: number; readonly durationMs: number; readonly followedByClick: boolean },
): Promise<void> {
  return events.track(
    "THUMBNAIL_HOVER",
    {
      videoId: v.external_id,
      title: v.title,
      position: h.position,
      hoverDurationMs: h.durationMs,
      followed_by_click: h.followedByClick,
      context: "feed",
    },
    { video_id: v.external_id, position_in_feed: h.position },
  );
}

/** VIDEO_META_CAPTURED of the watch page's video. */
export function trackVideoMeta(events: EventSender, video: Video): Promise<void> {
  return events.track("VIDEO_META_CAPTURED", videoMeta(video));
}

/** RECOMMENDATIONS of a related list that loaded. */
export function trackRelatedList(events: EventSender, video: Video, items: readonly Video[]): Promise<void> {
  return events.track("RECOMMENDATIONS", {
    currentVideoId: video.external_id,
    recommendedCount: items.length,
    recommended: items.map(listItem),
  });
}

/** VIDEO_CLICK on a related card. */
export function trackRelatedClick(events: EventSender, from: Video, target: Video, position: number) {
  return events.track(
    "VIDEO_CLICK",
    {
      clickedVideoId: target.external_id,
      clickedTitle: target.title,
      position,
      fromVideoId: from.external_id,
      context: "related",
    },
    { video_id: target.external_id, position_in_feed: position },
  );
}
