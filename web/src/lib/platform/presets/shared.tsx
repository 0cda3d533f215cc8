/**
 * Pieces both bundled style families use: the avatar and icons, loading more on scroll, and the parts
 * of a video card both families draw alike (thumbnail with its duration, title, views and age, the
 * related videos beside a watched one). Like the presets, it imports only the platform namespace and
 * `react`.
 */

import { formatDuration, formatRelative, formatViews, t, type Video, type VideoList } from "@feedlab/data";
import { type ReactNode, useEffect, useRef } from "react";

/** A style family's class prefix: `fg` (grid) or `fl` (list). */
export type Family = "fg" | "fl";

const HUES = [4, 24, 45, 140, 168, 200, 220, 262, 291, 330];

/** A stable colour per channel for its initial, as video sites show a channel avatar. */
export function Avatar({ name }: { name: string | null }) {
  const label = name?.trim() || "?";
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = HUES[hash % HUES.length] ?? 220;
  return (
    <span className="fx-avatar" aria-hidden="true" style={{ background: `hsl(${hue} 55% 42%)` }}>
      {label.slice(0, 1).toUpperCase()}
    </span>
  );
}

export function ThumbUp() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z" />
    </svg>
  );
}

export function ThumbDown() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M15 3H6c-.8 0-1.5.5-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7v2a2 2 0 0 0 2 2h6.3l-1 4.6v.3c0 .4.2.8.4 1.1l1.1 1 6.6-6.6c.4-.4.6-.9.6-1.4V5a2 2 0 0 0-2-2zm4 0v12h4V3h-4z" />
    </svg>
  );
}

/** Loads the next page as the end of the list comes near (with a button for keyboards). */
export function useMoreOnScroll(list: VideoList) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !list.hasMore) return;
    const io = new IntersectionObserver(([entry]) => entry?.isIntersecting && list.loadMore(), {
      rootMargin: "0px 0px 200px 0px",
    });
    io.observe(el);
    return () => io.disconnect();
  }, [list.hasMore, list.loadMore, list.items.length]);
  return ref;
}

/** A card's thumbnail, with the video's duration over it (`<family>-thumb`, `<family>-duration`). */
export function VideoThumb({ video, family, eager }: { video: Video; family: Family; eager?: boolean }) {
  const duration = formatDuration(video.duration_seconds);
  return (
    <span className={`${family}-thumb`}>
      {video.thumbnail_url ? (
        <img
          src={video.thumbnail_url}
          alt=""
          loading={eager ? "eager" : "lazy"}
          decoding="async"
          width={640}
          height={360}
        />
      ) : null}
      {duration ? <span className={`${family}-duration`}>{duration}</span> : null}
    </span>
  );
}

/**
 * A card's title (`<family>-title`): a heading one level below its list's, h2 under the page's h1, h3
 * under a list's h2. The title is isolated (`bdi`): an English title on an Arabic page reads in its own
 * order, aligned with the page.
 */
export function CardTitle({ video, family, level }: { video: Video; family: Family; level: 2 | 3 }) {
  return level === 2 ? (
    <h2 className={`${family}-title`}>
      <bdi>{video.title}</bdi>
    </h2>
  ) : (
    <h3 className={`${family}-title`}>
      <bdi>{video.title}</bdi>
    </h3>
  );
}

/** A card's views and age, one span each, in a paragraph (`block`) or a span of `className`. */
export function ViewsAndAge({
  video,
  className,
  block,
}: {
  video: Video;
  className: string;
  block?: boolean;
}) {
  const age = formatRelative(video.published_at);
  const parts = (
    <>
      {video.view_count == null ? null : <span>{formatViews(video.view_count)}</span>}
      {age ? <span>{age}</span> : null}
    </>
  );
  return block ? <p className={className}>{parts}</p> : <span className={className}>{parts}</span>;
}

/**
 * The videos related to the watched one, as a list of `className` with a card each (`card`), or why
 * there are none (`<family>-muted`); `skeletons` stand in while the first ones load.
 */
export function RelatedList({
  related,
  family,
  className,
  skeletons,
  card,
}: {
  related: VideoList;
  family: Family;
  className: string;
  skeletons: ReactNode;
  card: (video: Video, position: number) => ReactNode;
}) {
  if (related.error && related.items.length === 0)
    return <p className={`${family}-muted`}>{t("video.relatedFailed")}</p>;
  if (!related.loading && related.items.length === 0)
    return <p className={`${family}-muted`}>{t("video.noRelated")}</p>;
  return (
    <ul className={className} aria-label={t("video.related")}>
      {related.items.map((v, i) => (
        <li key={v.id}>{card(v, i)}</li>
      ))}
      {related.loading && related.items.length === 0 ? skeletons : null}
    </ul>
  );
}
