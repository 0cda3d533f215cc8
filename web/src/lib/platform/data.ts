/**
 * `@feedlab/data`: the data hooks participant layouts are written against (docs/participant-runtime.md).
 * They fetch through the platform (reading the session's own events, so watched videos are gone) and
 * emit the impression events the spec assigns to them: HOME_FEED per new feed chunk, RECOMMENDATIONS
 * per related load, LIKE and DISLIKE. The list events go once the cards are shown, with `latency_ms`,
 * the time from asking for the chunk to its cards shown (api.md, "Data quality and validity").
 */
import type { EventType, Payloads } from "@feedlab/schemas";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { FEED_PAGE_SIZE, RELATED_LIMIT } from "../feed.ts";
import { participantLanguage } from "../i18n/messages.svelte.ts";
import type { FeedPage, Video } from "../types.ts";
import { useRuntime } from "./context.ts";
import { afterPaint, latencyMs } from "./latency.ts";
import type { PlatformRuntime, PlatformSession } from "./runtime.ts";
import { webStore } from "./tracking/storage.ts";
import type { PayloadOf, RowFields } from "./tracking/tracker.ts";

export { formatDuration } from "../format.ts";
export { formatDate, formatRelative, formatViews } from "../i18n/format.ts";
export { type MessageKey, type MessageParams, t } from "../i18n/messages.svelte.ts";
export type { FeedPage, Video, VideoComment, VideoType } from "../types.ts";
export type { PlatformSession } from "./runtime.ts";
export type { PayloadOf, RowFields } from "./tracking/tracker.ts";

/** Props the host gives a feed page layout. */
export type FeedLayoutProps = Record<string, never>;

/** Props the host gives a watch page layout: the UUID of the video to show. */
export interface WatchLayoutProps {
  readonly videoId: string;
}

/** A paged list of videos, as `useFeed` and `useRelated` return it. */
export interface VideoList {
  readonly items: readonly Video[];
  /** True while a page is loading (the first one, or `loadMore`). */
  readonly loading: boolean;
  readonly error: Error | null;
  readonly hasMore: boolean;
  /** Loads the next page; does nothing while one loads or when there is no more. */
  loadMore(): void;
}

type ImpressionItem = Payloads["HOME_FEED"]["videos"][number];

/** One video as HOME_FEED and RECOMMENDATIONS list it (external id, feed position, metadata). */
export function impressionItem(
  video: Video & { readonly propensity?: number | null },
  position: number,
): ImpressionItem {
  return {
    position,
    videoId: video.external_id,
    title: video.title,
    channelName: video.channel_name,
    duration: video.duration_seconds,
    viewCount: video.view_count,
    thumbnailUrl: video.thumbnail_url,
    // Off-policy evaluation: the probability the recommender placed it with, as the server said.
    ...(video.propensity !== undefined ? { propensity: video.propensity } : {}),
  };
}

interface ListState {
  readonly items: readonly Video[];
  readonly loading: boolean;
  readonly error: Error | null;
  readonly nextOffset: number | null;
}

const INITIAL: ListState = { items: [], loading: true, error: null, nextOffset: 0 };

/**
 * The paging machinery both lists share: `fetchPage` loads, `onChunk` emits the chunk's event once
 * its cards are shown, with the ms from asking to then.
 */
function usePagedList(
  key: string,
  pageSize: number,
  fetchPage: (offset: number, limit: number) => Promise<FeedPage>,
  onChunk: (fresh: readonly Video[], firstPosition: number, latency: number) => void,
  runtime: PlatformRuntime,
): VideoList {
  const [state, setState] = useState<ListState>(INITIAL);
  const current = useRef({ key, state: INITIAL, busy: false });

  const load = useCallback(
    async (offset: number) => {
      const ref = current.current;
      if (ref.busy) return;
      ref.busy = true;
      const started = ref.key;
      const set = (next: ListState) => {
        if (current.current.key !== started) return;
        current.current.state = next;
        setState(next);
      };
      set({ ...ref.state, loading: true, error: null });
      try {
        const called = performance.now();
        const page = await fetchPage(offset, pageSize);
        // A prefetched page was asked for before the hook called: its request's start counts.
        const asked = Math.min(called, runtime.data.askedAt(page) ?? called);
        if (current.current.key !== started) return;
        const before = current.current.state.items;
        const seen = new Set(before.map((v) => v.id));
        const fresh = page.items.filter((v) => !seen.has(v.id));
        set({ items: [...before, ...fresh], loading: false, error: null, nextOffset: page.next_offset });
        if (fresh.length > 0 || offset === 0)
          afterPaint(
            () => {
              if (current.current.key === started)
                onChunk(fresh, before.length, latencyMs(asked, performance.now()));
            },
            (hook) => runtime.core.onLeave(hook),
          );
      } catch (error) {
        set({
          ...current.current.state,
          loading: false,
          error: error instanceof Error ? error : new Error(String(error)),
        });
      } finally {
        if (current.current.key === started) current.current.busy = false;
      }
    },
    [fetchPage, onChunk, pageSize, runtime],
  );

  useEffect(() => {
    current.current = { key, state: INITIAL, busy: false };
    setState(INITIAL);
    void load(0);
  }, [key]);

  const loadMore = useCallback(() => {
    const { state: s, busy } = current.current;
    if (!busy && s.nextOffset !== null && !s.loading) void load(s.nextOffset);
  }, [load]);

  return {
    items: state.items,
    loading: state.loading,
    error: state.error,
    hasMore: state.nextOffset !== null,
    loadMore,
  };
}

/**
 * The feed, a page at a time (`GET /feed`, the group's feed recommender). Each new chunk, once shown,
 * emits HOME_FEED with the chunk's videos, their positions in the whole feed and `latency_ms`.
 */
export function useFeed(options: { pageSize?: number } = {}): VideoList {
  const runtime = useRuntime();
  const pageSize = options.pageSize ?? FEED_PAGE_SIZE;
  const fetchPage = useCallback(
    (offset: number, limit: number) => runtime.data.feed(offset, limit),
    [runtime],
  );
  const onChunk = useCallback(
    (fresh: readonly Video[], first: number, latency: number) => {
      runtime.core.tracker.track("HOME_FEED", {
        videoCount: fresh.length,
        videos: fresh.map((v, i) => impressionItem(v, first + i)),
        latency_ms: latency,
      });
    },
    [runtime],
  );
  return usePagedList(`feed:${runtime.session.sessionId}`, pageSize, fetchPage, onChunk, runtime);
}

/**
 * Videos related to a video (`GET /feed/{id}/related`, the group's watch recommender), by the video's
 * UUID. Each load, once shown, emits RECOMMENDATIONS with the current video's external id, the list
 * and `latency_ms`.
 */
export function useRelated(videoId: string, options: { limit?: number } = {}): VideoList {
  const runtime = useRuntime();
  const limit = options.limit ?? RELATED_LIMIT;
  const fetchPage = useCallback(
    (offset: number, size: number) => runtime.data.related(videoId, offset, size),
    [runtime, videoId],
  );
  // The current video, read as the list loads, so the event can go at once when the page is left.
  const current = useRef<Video | null>(null);
  useEffect(() => {
    runtime.data.video(videoId).then(
      (video) => {
        if (video.id === videoId) current.current = video;
      },
      () => undefined,
    );
  }, [runtime, videoId]);
  const onChunk = useCallback(
    (fresh: readonly Video[], first: number, latency: number) => {
      const emit = (video: Video) =>
        runtime.core.tracker.track("RECOMMENDATIONS", {
          currentVideoId: video.external_id,
          recommendedCount: fresh.length,
          recommended: fresh.map((v, i) => impressionItem(v, first + i)),
          latency_ms: latency,
        });
      const known = current.current;
      if (known?.id === videoId) emit(known);
      else void runtime.data.video(videoId).then(emit, () => undefined);
    },
    [runtime, videoId],
  );
  return usePagedList(`related:${videoId}`, limit, fetchPage, onChunk, runtime);
}

/** A video of the participant's pool, by UUID. */
export function useVideo(id: string): { video: Video | null; loading: boolean; error: Error | null } {
  const runtime = useRuntime();
  const [state, setState] = useState<{ id: string; video: Video | null; error: Error | null }>({
    id,
    video: null,
    error: null,
  });
  useEffect(() => {
    let live = true;
    runtime.data.video(id).then(
      (video) => live && setState({ id, video, error: null }),
      (error: unknown) =>
        live &&
        setState({ id, video: null, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      live = false;
    };
  }, [runtime, id]);
  const fresh = state.id === id;
  return {
    video: fresh ? state.video : null,
    loading: !fresh || (state.video === null && state.error === null),
    error: fresh ? state.error : null,
  };
}

export type Rating = "like" | "dislike" | null;

/**
 * The participant's rating of a video. `like()` emits LIKE (`videoId`, and `timestamp`: where the
 * watch page's player is, when it plays this video); `dislike()` emits DISLIKE. Both flush at once.
 * Pressing the active one again clears it locally and emits nothing (the contract has no "unlike").
 * The rating is remembered in this browser per participant.
 */
export function useLikes(video: Video | null): {
  rating: Rating;
  liked: boolean;
  disliked: boolean;
  like(): void;
  dislike(): void;
} {
  const runtime = useRuntime();
  const storeKey = `feedlab.ratings.${runtime.session.userId}`;
  const store = useMemo(() => webStore("local"), []);
  const read = useCallback((): Record<string, Rating> => {
    try {
      return JSON.parse(store.getItem(storeKey) ?? "{}") as Record<string, Rating>;
    } catch {
      return {};
    }
  }, [store, storeKey]);
  const [rating, setRating] = useState<Rating>(null);
  useEffect(() => {
    setRating(video ? (read()[video.external_id] ?? null) : null);
  }, [video?.external_id, read]);

  const rate = useCallback(
    (next: "like" | "dislike") => {
      if (!video) return;
      const all = read();
      const value: Rating = all[video.external_id] === next ? null : next;
      if (value === null) delete all[video.external_id];
      else all[video.external_id] = value;
      try {
        store.setItem(storeKey, JSON.stringify(all));
      } catch {
        // Not remembered; the event is what counts.
      }
      setRating(value);
      if (value === null) return;
      const tracker = runtime.core.tracker;
      const fields = { video_id: video.external_id };
      if (value === "like") {
        const player = runtime.player;
        const at = player && player.videoId === video.external_id ? player.currentTime() : null;
        tracker.track(
          "LIKE",
          {
            videoId: video.external_id,
            ...(at !== null && Number.isFinite(at) ? { timestamp: Math.round(at * 1000) / 1000 } : {}),
          },
          fields,
        );
      } else {
        tracker.track("DISLIKE", { videoId: video.external_id }, fields);
      }
    },
    [video, read, runtime, store, storeKey],
  );

  return {
    rating,
    liked: rating === "like",
    disliked: rating === "dislike",
    like: useCallback(() => rate("like"), [rate]),
    dislike: useCallback(() => rate("dislike"), [rate]),
  };
}

/**
 * The escape hatch for events no surface emits (spec: "useTracking() exists for new event types"),
 * such as LAYOUT_CHANGE. The type must be one of the contract's types (a new one is added to the
 * contract first, schemas/src/events); its payload needs the type's required fields. The event is
 * stamped, batched and delivered like any other.
 */
export function useTracking(): {
  track<K extends EventType>(type: K, payload: PayloadOf<K>, fields?: RowFields): void;
} {
  const runtime = useRuntime();
  return useMemo(
    () => ({
      track<K extends EventType>(type: K, payload: PayloadOf<K>, fields?: RowFields) {
        runtime.core.tracker.track(type, payload, fields);
      },
    }),
    [runtime],
  );
}

/** The participant, the session and the group's configuration. */
export function useSession(): PlatformSession {
  return useRuntime().session;
}

/**
 * The participant's language (a BCP 47 tag such as `de`, `zh-Hans`, `ar`); the component renders again
 * when the participant switches. Feedlab's own strings come from `t`; a layout's own texts may choose by
 * this tag. The page's `lang` and `dir` already follow it.
 */
export function useLanguage(): string {
  const [tag, setTag] = useState(participantLanguage.tag);
  useEffect(() => participantLanguage.subscribe(() => setTag(participantLanguage.tag)), []);
  return tag;
}
