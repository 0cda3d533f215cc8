import type { ParticipantApi } from "../participant-api.ts";
import type { FeedPage, Video } from "../types.ts";
import type { TrackingCore } from "./tracking/core.ts";

/** How long a feed request waits for this session's events to be acknowledged before it goes anyway. */
const READ_AFTER_WAIT_MS = 2000;
/** A prefetched page older than this is fetched again instead of used. */
const PREFETCH_TTL_MS = 15_000;
/** First pages are prefetched this large; a layout asking for fewer gets the head of it. */
const PREFETCH_FEED_SIZE = 20;
const PREFETCH_RELATED_SIZE = 12;

interface Prefetched {
  readonly key: string;
  readonly limit: number;
  readonly at: number;
  readonly page: Promise<FeedPage>;
}

/** The first `limit` items of a first page, with the paging fields a page of that size would have. */
function head(page: FeedPage, limit: number): FeedPage {
  if (page.items.length <= limit) return page;
  return { ...page, items: page.items.slice(0, limit), has_more: true, next_offset: limit };
}

/**
 * The participant's data, framework-free: feed and related pages that read the session's own writes,
 * and videos. Before a page request it waits (bounded) until the tracking core's batches are
 * acknowledged, then passes the latest log position as `after`, so a video watched a moment ago (at
 * least 1 s, or ended) is already left out. The page loaders prefetch the first page while the layout
 * code loads; the hooks take it from here.
 */
export class DataClient {
  readonly #api: ParticipantApi;
  readonly #sessionId: string;
  readonly #core: TrackingCore;
  readonly #videos = new Map<string, Promise<Video>>();
  /** When the request behind each page began (`performance.now()`), for its `latency_ms`. */
  readonly #asked = new WeakMap<FeedPage, number>();
  #prefetched: Prefetched | null = null;

  constructor(api: ParticipantApi, sessionId: string, core: TrackingCore) {
    this.#api = api;
    this.#sessionId = sessionId;
    this.#core = core;
  }

  /** A page of the feed (`GET /feed`), served by the group's feed recommender. */
  feed(offset: number, limit: number): Promise<FeedPage> {
    return (offset === 0 ? this.#take("feed", limit) : null) ?? this.#page(null, offset, limit);
  }

  /** A page of videos related to `videoId` (a UUID), served by the group's watch recommender. */
  related(videoId: string, offset: number, limit: number): Promise<FeedPage> {
    return (
      (offset === 0 ? this.#take(`related:${videoId}`, limit) : null) ?? this.#page(videoId, offset, limit)
    );
  }

  /** Starts the first feed page early (while the layout's code loads); the first `feed(0, n)` takes it. */
  prefetchFeed(limit = PREFETCH_FEED_SIZE): void {
    this.#prefetch("feed", limit, () => this.#page(null, 0, limit));
  }

  /** Starts the first related page of a video early; the first `related(videoId, 0, n)` takes it. */
  prefetchRelated(videoId: string, limit = PREFETCH_RELATED_SIZE): void {
    this.#prefetch(`related:${videoId}`, limit, () => this.#page(videoId, 0, limit));
  }

  /**
   * When the request that brought `page` began (`performance.now()`), a prefetch's start for a page
   * taken from one: where a list's `latency_ms` counts from. Undefined for a page not from here.
   */
  askedAt(page: FeedPage): number | undefined {
    return this.#asked.get(page);
  }

  /** A video of the participant's pool, by UUID (cached for the page's life). */
  video(id: string): Promise<Video> {
    let video = this.#videos.get(id);
    if (!video) {
      video = this.#api.getVideo(id);
      video.catch(() => this.#videos.delete(id));
      this.#videos.set(id, video);
    }
    return video;
  }

  /** A video the page already has (from its loader). */
  seedVideo(video: Video): void {
    this.#videos.set(video.id, Promise.resolve(video));
  }

  async #page(videoId: string | null, offset: number, limit: number): Promise<FeedPage> {
    const asked = performance.now();
    const after = (await this.#core.settled(READ_AFTER_WAIT_MS)) ?? undefined;
    const query = { session_id: this.#sessionId, limit, offset, after };
    const page = videoId === null ? await this.#api.feed(query) : await this.#api.related(videoId, query);
    this.#asked.set(page, asked);
    for (const video of page.items) if (!this.#videos.has(video.id)) this.seedVideo(video);
    return page;
  }

  #prefetch(key: string, limit: number, load: () => Promise<FeedPage>): void {
    const page = load();
    page.catch(() => undefined);
    this.#prefetched = { key, limit, at: Date.now(), page };
  }

  #take(key: string, limit: number): Promise<FeedPage> | null {
    const p = this.#prefetched;
    if (!p || p.key !== key || p.limit < limit || Date.now() - p.at > PREFETCH_TTL_MS) return null;
    this.#prefetched = null;
    return p.page.then((page) => {
      const cut = head(page, limit);
      const asked = this.#asked.get(page);
      if (asked !== undefined) this.#asked.set(cut, asked);
      return cut;
    });
  }
}
