import type { AnchorHTMLAttributes, ComponentChildren } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { formatDuration } from "../../format.ts";
import type { Video } from "../../types.ts";
import { SurfaceContext, useRuntime } from "../context.ts";
import { loadPlayer, type Player } from "./players/index.ts";

/** Hovers shorter than one mouse sample (100 ms) are the pointer passing by, not a hover. */
export const MIN_HOVER_MS = 100;

/** Where a VideoSurface sits: a feed card, a related-list card, or the watch page's player. */
export type VideoContext = "feed" | "related" | "watch";

type AnchorProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "children" | "href" | "onClick" | "role">;

export interface VideoCardProps extends AnchorProps {
  readonly video: Video;
  /** The card's position in its list (0-based): `position_in_feed` of its events. */
  readonly position: number;
  readonly context: "feed" | "related";
  /** The card's look; a plain thumbnail-and-title card when omitted. */
  readonly children?: ComponentChildren;
}

export interface VideoPlayerProps {
  readonly video: Video;
  readonly context: "watch";
  /** Start playing when the page opens (default true). */
  readonly autoplay?: boolean;
  readonly className?: string;
  /** YouTube and Vimeo: the adapter's poll interval (250 to 1000 ms). */
  readonly pollMs?: number;
}

export type VideoSurfaceProps = VideoCardProps | VideoPlayerProps;

/**
 * One video. As a card (`context` "feed" or "related") it is a link to `/watch/{id}` wrapping the
 * layout's card markup, and emits IMPRESSION (50 % visible, once per mount), THUMBNAIL_HOVER (with
 * `followed_by_click`), and FEED_CLICK (feed) or VIDEO_CLICK (related). As the player (`context`
 * "watch") it renders the video's player (native, or the YouTube or Vimeo adapter) and emits the playback,
 * player-control and keyboard events. Every event carries the video's external id.
 */
export function VideoSurface(props: VideoSurfaceProps) {
  return props.context === "watch" ? <VideoPlayer {...props} /> : <VideoCard {...props} />;
}

function VideoPlayer({ video, autoplay, className, pollMs }: VideoPlayerProps) {
  const [loaded, setLoaded] = useState<{ type: string; Player: Player } | null>(null);
  useEffect(() => {
    let live = true;
    loadPlayer(video.type).then(
      (Player) => live && setLoaded({ type: video.type, Player }),
      (error: unknown) => console.error("feedlab: the player could not be loaded", error),
    );
    return () => {
      live = false;
    };
  }, [video.type]);
  if (!loaded || loaded.type !== video.type)
    return <div className={className} data-feedlab-player="loading" />;
  const { Player } = loaded;
  return <Player key={video.id} video={video} autoplay={autoplay} className={className} pollMs={pollMs} />;
}

function VideoCard({ video, position, context, children, ...rest }: VideoCardProps) {
  const runtime = useRuntime();
  const surface = useContext(SurfaceContext);
  const ref = useRef<HTMLAnchorElement>(null);
  const hoverStart = useRef<number | null>(null);
  const tracker = runtime.core.tracker;
  const fields = { video_id: video.external_id, position_in_feed: position };
  // The page's registry, not the whole context: the context changes when the watch page's video
  // loads, and following the card anew would count a second impression.
  const observe = surface?.observe;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const item = { videoId: video.external_id, position };
    const impression = () => tracker.track("IMPRESSION", { context }, fields);
    if (observe) return observe(el, item, impression);
    // Outside a page surface: the card follows its own visibility.
    let seen = false;
    const io = new IntersectionObserver(
      ([entry]) => {
        if (!seen && entry && entry.isIntersecting && entry.intersectionRatio >= 0.5) {
          seen = true;
          impression();
        }
      },
      { threshold: [0.5] },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [video.id, position, context, observe]);

  const hover = (clicked: boolean) => {
    const start = hoverStart.current;
    hoverStart.current = null;
    if (start === null) return;
    const ms = Date.now() - start;
    if (ms < MIN_HOVER_MS && !clicked) return;
    tracker.track(
      "THUMBNAIL_HOVER",
      {
        videoId: video.external_id,
        title: video.title,
        position,
        hoverDurationMs: ms,
        followed_by_click: clicked,
        context,
      },
      fields,
    );
  };

  const onClick = () => {
    hover(true);
    if (context === "feed") {
      tracker.track("FEED_CLICK", { title: video.title }, fields);
    } else {
      tracker.track(
        "VIDEO_CLICK",
        {
          clickedVideoId: video.external_id,
          clickedTitle: video.title,
          position,
          fromVideoId: surface?.video?.external_id ?? "",
          context,
        },
        fields,
      );
    }
  };

  return (
    <a
      {...rest}
      ref={ref}
      href={`/watch/${video.id}`}
      data-feedlab-card={context}
      data-position={position}
      onPointerEnter={(e) => {
        if (e.pointerType === "mouse") hoverStart.current = Date.now();
      }}
      onPointerLeave={() => hover(false)}
      onClick={onClick}
    >
      {children ?? <DefaultCard video={video} />}
    </a>
  );
}

function DefaultCard({ video }: { video: Video }) {
  return (
    <>
      {video.thumbnail_url ? <img src={video.thumbnail_url} alt="" loading="lazy" decoding="async" /> : null}
      <span>{video.title}</span>
      {video.duration_seconds ? <span> {formatDuration(video.duration_seconds)}</span> : null}
    </>
  );
}
