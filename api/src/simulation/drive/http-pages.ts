import type { JourneyAction, Video } from "@feedlab/schemas";
import type { Card } from "../browse.ts";
import type { WatchPlan } from "../watch.ts";
import type { EventSender } from "./event-sender.ts";

// What the participant runtime's surfaces send for one page action, over HTTP (issue 36).

/** Cards a page shows without scrolling; going further down is a SCROLL. */
const CARDS_ABOVE_FOLD = 4;
/** VIDEO_PROGRESS comes every 5 s of playback (spec). */
const PROGRESS_EVERY_S = 5;

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

/** The playback events of a plan, in the order a player would send them. */
export async function play(
  events: EventSender,
  video: Video,
  plan: WatchPlan,
  act: (...a: JourneyAction[]) => void,
): Promise<void> {
  const vid = { video_id: video.external_id };
  const duration = plan.durationSeconds;
  const at = (t: number) => ({ currentTime: t, duration, progress: duration > 0 ? t / duration : 0 });
  await events.track("VIDEO_PLAY", { currentTime: 0, duration, playbackRate: 1 }, vid);
  act("play");
  // Played seconds so far, and the clock the marks are read on.
  let played = 0;
  let clock = 0;
  let nextProgress = PROGRESS_EVERY_S;
  let marked1 = false;
  let marked5 = false;
  const runTo = async (target: number) => {
    while (clock < target) {
      const step = Math.min(target, Math.floor(clock) + 1) - clock;
      clock += step;
      played += step;
      if (!marked1 && played >= 1) {
        marked1 = true;
        await events.track("VIDEO_WATCHED_1S", at(clock), vid);
        act("play_1s");
      }
      if (!marked5 && played >= 5) {
        marked5 = true;
        await events.track("VIDEO_WATCHED_5S", at(clock), vid);
        act("play_5s");
      }
      if (played >= nextProgress) {
        nextProgress += PROGRESS_EVERY_S;
        await events.track("VIDEO_PROGRESS", at(clock), vid);
        act("keep_playing");
      }
    }
  };
  for (const a of plan.actions) {
    await runTo(a.atSecond);
    if (a.kind === "pause") {
      await events.track("VIDEO_PAUSE", { currentTime: clock, duration, watchedDuration: played }, vid);
      await events.track("VIDEO_PLAY", { currentTime: clock, duration, playbackRate: 1 }, vid);
      act("pause");
    } else if (a.kind === "seek") {
      await events.track(
        "VIDEO_SEEK",
        { from: clock, to: a.toSecond, seekDistance: Math.abs(a.toSecond - clock), duration },
        vid,
      );
      clock = a.toSecond;
      act("seek");
    } else if (a.kind === "like") {
      await events.track("LIKE", { videoId: video.external_id, timestamp: clock }, vid);
      act("like");
    } else {
      await events.track("DISLIKE", { videoId: video.external_id }, vid);
      act("dislike");
    }
  }
  await runTo(plan.stopAtSecond);
  if (plan.reachesEnd) {
    const rate = duration > 0 ? Math.min(1, played / duration) : 1;
    await events.track(
      "VIDEO_ENDED",
      { duration, totalWatchedTime: played, completionRate: rate },
      { ...vid, watch_ratio: rate, watch_duration: played },
    );
    act("reach_end");
  } else if (played > 0) {
    await events.track("VIDEO_PAUSE", { currentTime: clock, duration, watchedDuration: played }, vid);
    act("pause");
  }
}

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
  return events.track("VIDEO_META_CAPTURED", {
    videoId: video.external_id,
    title: video.title,
    channelName: video.channel_name,
    category: video.category,
    viewCount: video.view_count,
    description: video.description,
    tags: video.tags,
    duration: video.duration_seconds,
    thumbnailUrl: video.thumbnail_url,
  });
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
