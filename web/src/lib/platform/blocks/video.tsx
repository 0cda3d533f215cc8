/**
 * A video's parts (the catalog's group "video", but the Player): each shows one video's data, its
 * card's inside a VideoList, else the watch page's video. Likes, Actions and Comments belong to the
 * watch page, outside cards.
 */
import { formatDate, formatDuration, formatRelative, formatViews, t, useLikes } from "@feedlab/data";
import type { BlockProps } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { useState } from "react";
import { Avatar, ThumbDown, ThumbUp } from "../presets/shared.tsx";
import { useShownVideo, type WithChildren, withDefaults } from "./scope.tsx";

export type ThumbnailProps = BlockProps<"Thumbnail">;

export function Thumbnail(props: ThumbnailProps) {
  const p = withDefaults("Thumbnail", props);
  const { video } = useShownVideo();
  if (!video) return <span className="fb-thumb" />;
  const duration = p.showDuration ? formatDuration(video.duration_seconds) : null;
  return (
    <span className="fb-thumb">
      {video.thumbnail_url ? (
        <img src={video.thumbnail_url} alt="" loading="lazy" decoding="async" width={640} height={360} />
      ) : null}
      {duration ? <span className="fb-duration">{duration}</span> : null}
    </span>
  );
}

export type TitleProps = BlockProps<"Title">;

export function Title(props: TitleProps) {
  const p = withDefaults("Title", props);
  const { video, inCard, titleLevel } = useShownVideo();
  if (!video) return null;
  const className = `fb-title fb-title--${p.size}`;
  // Isolated (bdi): a title in another script than the page's reads in its own order.
  const title = <bdi>{video.title}</bdi>;
  if (!inCard) return <h1 className={className}>{title}</h1>;
  return titleLevel === 2 ? <h2 className={className}>{title}</h2> : <h3 className={className}>{title}</h3>;
}

export type ChannelProps = BlockProps<"Channel">;

export function Channel(props: ChannelProps) {
  const p = withDefaults("Channel", props);
  const { video } = useShownVideo();
  if (!video?.channel_name) return null;
  return (
    <span className="fb-channel">
      {p.showAvatar ? <Avatar name={video.channel_name} /> : null}
      <bdi>{video.channel_name}</bdi>
    </span>
  );
}

export function Views() {
  const { video } = useShownVideo();
  if (!video || video.view_count == null) return null;
  return <span className="fb-sub">{formatViews(video.view_count)}</span>;
}

export type PublishedProps = BlockProps<"Published">;

export function Published(props: PublishedProps) {
  const p = withDefaults("Published", props);
  const { video } = useShownVideo();
  const when =
    p.format === "date"
      ? formatDate(video?.published_at ?? null)
      : formatRelative(video?.published_at ?? null);
  return when ? <span className="fb-sub">{when}</span> : null;
}

export type TagsProps = BlockProps<"Tags">;

export function Tags(props: TagsProps) {
  const p = withDefaults("Tags", props);
  const { video } = useShownVideo();
  const tags = (video?.tags ?? []).slice(0, p.max);
  if (tags.length === 0) return null;
  return (
    <ul className="fb-tags" aria-label={t("video.tags")}>
      {tags.map((tag) => (
        <li key={tag}>#{tag}</li>
      ))}
    </ul>
  );
}

export type DescriptionProps = BlockProps<"Description">;

export function Description(props: DescriptionProps) {
  const p = withDefaults("Description", props);
  const { video, inCard } = useShownVideo();
  const [open, setOpen] = useState(!p.collapsed);
  if (!video?.description) return null;
  // A card is a link: it gets no button, only the folded text.
  if (inCard)
    return <span className={p.collapsed ? "fb-desc fb-clamped" : "fb-desc"}>{video.description}</span>;
  return (
    <section className="fb-desc-box" aria-label={t("video.description")}>
      <p className={open ? "fb-desc" : "fb-desc fb-clamped"}>{video.description}</p>
      {p.collapsed ? (
        <button type="button" className="fb-link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t("video.showLess") : t("video.showMore")}
        </button>
      ) : null}
    </section>
  );
}

export type LikesProps = BlockProps<"Likes">;

export function Likes(props: LikesProps) {
  const p = withDefaults("Likes", props);
  const { video } = useShownVideo();
  const likes = useLikes(video);
  return (
    <span className="fb-likes">
      <button
        type="button"
        className="fb-btn"
        aria-pressed={likes.liked}
        onClick={likes.like}
        disabled={!video}
      >
        <ThumbUp />
        {t("video.like")}
      </button>
      {p.showDislike ? (
        <button
          type="button"
          className="fb-btn"
          aria-pressed={likes.disliked}
          onClick={likes.dislike}
          disabled={!video}
        >
          <ThumbDown />
          {t("video.dislike")}
        </button>
      ) : null}
    </span>
  );
}

export type ActionsProps = BlockProps<"Actions"> & WithChildren;

export function Actions(props: ActionsProps) {
  const p = withDefaults("Actions", props);
  return (
    <div className="fb-actions">
      {p.showChannel ? <Channel /> : null}
      <div className="fb-actions-end">{props.children}</div>
    </div>
  );
}

export type CommentsProps = BlockProps<"Comments">;

export function Comments(props: CommentsProps) {
  const p = withDefaults("Comments", props);
  const { video } = useShownVideo();
  if (!video) return null;
  const comments = (video.comments ?? []).slice(0, p.limit);
  return (
    <section className="fb-comments" aria-label={p.title}>
      <h2 className="fb-heading">
        {p.title} ({video.comments?.length ?? 0})
      </h2>
      {comments.length === 0 ? (
        <p className="fb-sub">{t("video.noComments")}</p>
      ) : (
        <ul>
          {comments.map((c, i) => (
            <li key={i} className="fb-comment">
              <Avatar name={c.author} />
              <div>
                <p className="fb-comment-author">@{c.author}</p>
                <p>{c.text}</p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
