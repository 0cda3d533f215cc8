/**
 * `@feedlab/blocks`: the visual track's 19 blocks as components over the same surfaces and hooks as the
 * presets (docs/blocks.md). Their props and defaults are the catalog's (`@feedlab/schemas/ui/blocks.ts`);
 * every block renders with no props. A block tree exports as TSX over these components, and code
 * templates may use them too.
 */
import {
  formatDate,
  formatDuration,
  formatRelative,
  formatViews,
  useFeed,
  useLikes,
  useRelated,
  useVideo,
  type Video,
  type VideoList as VideoListData,
} from "@feedlab/data";
import { BLOCKS, type BlockType } from "@feedlab/schemas/ui/blocks.ts";
import { FeedSurface, VideoSurface, WatchSurface } from "@feedlab/surfaces";
import type { ComponentChildren, VNode } from "preact";
import { Children, cloneElement, createContext, isValidElement, useContext, useState } from "react";
import { Avatar, ThumbDown, ThumbUp, useMoreOnScroll } from "../presets/shared.tsx";
import { BLOCKS_CSS } from "./styles.ts";

/** A block's props as given, over the catalog's defaults. */
function withDefaults(type: BlockType, given: object): Record<string, unknown> {
  return { ...DEFAULTS[type], ...given };
}

/** Each block's prop defaults, read from the catalog once (cards render them many times). */
const DEFAULTS = Object.fromEntries(
  Object.entries(BLOCKS).map(([type, spec]) => [
    type,
    Object.fromEntries(
      Object.entries(spec.props).map(([name, prop]) => [name, (prop as { default: unknown }).default]),
    ),
  ]),
) as Record<BlockType, Record<string, unknown>>;

interface PageContextValue {
  readonly page: "feed" | "watch";
  readonly videoId: string | null;
  readonly video: Video | null;
}
const PageContext = createContext<PageContextValue>({ page: "feed", videoId: null, video: null });

/**
 * The video of the card being rendered (inside a VideoList), if any, and the level of its title's
 * heading: one below the list's heading.
 */
const CardContext = createContext<{ video: Video; position: number; titleLevel?: 2 | 3 } | null>(null);

/**
 * Shows `video` in the video blocks inside it (Title, Thumbnail, ...), as a VideoList card does: for
 * code templates that get a video from a hook of their own.
 */
export function VideoScope({
  video,
  position = 0,
  children,
}: { video: Video; position?: number } & WithChildren) {
  return <CardContext.Provider value={{ video, position }}>{children}</CardContext.Provider>;
}

/** The video a video block shows: its card's, else the watch page's. */
function useShownVideo(): { video: Video | null; inCard: boolean; titleLevel: 2 | 3 } {
  const card = useContext(CardContext);
  const page = useContext(PageContext);
  return card
    ? { video: card.video, inCard: true, titleLevel: card.titleLevel ?? 3 }
    : { video: page.video, inCard: false, titleLevel: 3 };
}

interface WithChildren {
  readonly children?: ComponentChildren;
}

// Layout ---------------------------------------------------------------------------------------------

export interface PageProps extends WithChildren {
  maxWidth?: number;
  padding?: number;
  theme?: "light" | "dark";
  /** The watch page's video (a watch layout passes its `videoId`); absent on the feed page. */
  videoId?: string;
}

/**
 * Every page has one h1, its headings in order. On the feed, the first heading of the tree (a Text
 * heading, or a Video list's heading) becomes the h1, with the Video list's cards one level below its
 * heading; a tree with neither gets a hidden h1. On the watch page, the Title of the page's video is
 * the h1; a tree without one gets the title as a hidden h1. (Blocks wrapped in components of a code
 * layout's own are not seen: such a layout heads its page itself.)
 */
export function Page(props: PageProps) {
  const p = withDefaults("Page", props) as Required<Omit<PageProps, "videoId" | "children">>;
  const style = { maxWidth: `${p.maxWidth}px`, padding: `${p.padding}px` };
  const className = `fb fb--${p.theme}`;
  if (props.videoId) {
    const hasTitle = containsTitle(props.children);
    const content = (title: string | null) => (
      <>
        <style>{BLOCKS_CSS}</style>
        <main className="fb-page" style={style}>
          {hasTitle ? null : <h1 className="fb-sr">{title ?? "Video"}</h1>}
          {props.children}
        </main>
      </>
    );
    return <WatchPage videoId={props.videoId} className={className} content={content} />;
  }
  const [children, promoted] = promoteFirstHeading(props.children);
  return (
    <PageContext.Provider value={{ page: "feed", videoId: null, video: null }}>
      <FeedSurface className={className}>
        <style>{BLOCKS_CSS}</style>
        <main className="fb-page" style={style}>
          {promoted ? null : <h1 className="fb-sr">Videos</h1>}
          {children}
        </main>
      </FeedSurface>
    </PageContext.Provider>
  );
}

/** Whether a Title of the page's video (one outside any Video list's cards) is among `children`. */
function containsTitle(children: ComponentChildren): boolean {
  return Children.toArray(children).some(
    (child) =>
      isValidElement(child) &&
      child.type !== VideoList &&
      (child.type === Title || containsTitle((child.props as WithChildren).children)),
  );
}

/**
 * `children` with their first heading (document order: a Text heading or a Video list) made the
 * page's h1, and whether there was one.
 */
function promoteFirstHeading(children: ComponentChildren): [ComponentChildren, boolean] {
  let done = false;
  const visit = (node: ComponentChildren): ComponentChildren => {
    if (done) return node;
    if (Array.isArray(node)) return node.map(visit);
    if (!isValidElement(node)) return node;
    const element = node as VNode<{ style?: unknown; children?: ComponentChildren }>;
    const props = element.props;
    if ((element.type === Text && props.style === "heading") || element.type === VideoList) {
      done = true;
      return cloneElement(element, { headingLevel: 1 });
    }
    if (props.children === undefined || props.children === null) return node;
    const next = visit(props.children);
    return done ? cloneElement(element, {}, next) : node;
  };
  const result = visit(children);
  return [result, done];
}

function WatchPage({
  videoId,
  className,
  content,
}: {
  videoId: string;
  className: string;
  content: (title: string | null) => ComponentChildren;
}) {
  const { video, error } = useVideo(videoId);
  return (
    <PageContext.Provider value={{ page: "watch", videoId, video }}>
      <WatchSurface video={video} className={className}>
        {error ? (
          <p className="fb-empty" role="alert">
            This video is not available.
          </p>
        ) : null}
        {content(video?.title ?? null)}
      </WatchSurface>
    </PageContext.Provider>
  );
}

export interface StackProps extends WithChildren {
  direction?: "vertical" | "horizontal";
  gap?: number;
  align?: "stretch" | "start" | "center" | "end";
}

const ALIGN = { stretch: "stretch", start: "flex-start", center: "center", end: "flex-end" } as const;

export function Stack(props: StackProps) {
  const p = withDefaults("Stack", props) as Required<Omit<StackProps, "children">>;
  return (
    <div
      className="fb-stack"
      style={{
        flexDirection: p.direction === "horizontal" ? "row" : "column",
        flexWrap: p.direction === "horizontal" ? "wrap" : "nowrap",
        gap: `${p.gap}px`,
        alignItems: ALIGN[p.align],
      }}
    >
      {props.children}
    </div>
  );
}

export interface GridProps extends WithChildren {
  columns?: number;
  minColumnWidth?: number;
  gap?: number;
}

export function Grid(props: GridProps) {
  const p = withDefaults("Grid", props) as Required<Omit<GridProps, "children">>;
  const columns =
    p.columns > 0
      ? `repeat(${p.columns}, minmax(0, 1fr))`
      : `repeat(auto-fill, minmax(min(100%, ${p.minColumnWidth}px), 1fr))`;
  return (
    <div className="fb-grid" style={{ gridTemplateColumns: columns, gap: `${p.gap}px` }}>
      {props.children}
    </div>
  );
}

export interface SplitColumnProps extends WithChildren {
  ratio?: "2:1" | "3:1" | "1:1" | "1:2";
  gap?: number;
}

export function SplitColumn(props: SplitColumnProps) {
  const p = withDefaults("SplitColumn", props) as Required<Omit<SplitColumnProps, "children">>;
  const [left, right] = p.ratio.split(":").map(Number) as [number, number];
  const [first, ...rest] = Children.toArray(props.children);
  return (
    <div
      className="fb-split"
      style={{ gridTemplateColumns: `minmax(0, ${left}fr) minmax(0, ${right}fr)`, gap: `${p.gap}px` }}
    >
      <div className="fb-split-main">{first}</div>
      <div className="fb-split-side">{rest}</div>
    </div>
  );
}

export interface TabsProps extends WithChildren {
  titles?: string;
}

let tabsCount = 0;

export function Tabs(props: TabsProps) {
  const p = withDefaults("Tabs", props) as Required<Omit<TabsProps, "children">>;
  const panels = Children.toArray(props.children);
  const titles = p.titles
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const [open, setOpen] = useState(0);
  const [id] = useState(() => `fb-tabs-${++tabsCount}`);
  if (panels.length === 0) return null;
  return (
    <div className="fb-tabs">
      <div role="tablist" className="fb-tablist">
        {panels.map((_, i) => (
          <button
            key={i}
            type="button"
            role="tab"
            id={`${id}-tab-${i}`}
            aria-controls={`${id}-panel-${i}`}
            aria-selected={i === open}
            tabIndex={i === open ? 0 : -1}
            className="fb-tab"
            onClick={() => setOpen(i)}
          >
            {titles[i] ?? `Tab ${i + 1}`}
          </button>
        ))}
      </div>
      {panels.map((panel, i) => (
        <div
          key={i}
          role="tabpanel"
          id={`${id}-panel-${i}`}
          aria-labelledby={`${id}-tab-${i}`}
          hidden={i !== open}
        >
          {panel}
        </div>
      ))}
    </div>
  );
}

export interface DividerProps {
  spacing?: number;
}

export function Divider(props: DividerProps) {
  const p = withDefaults("Divider", props) as Required<DividerProps>;
  return <hr className="fb-divider" style={{ margin: `${p.spacing}px 0` }} />;
}

export interface TextProps {
  text?: string;
  style?: "paragraph" | "heading" | "note";
  /** Set by the Page: the first heading of a feed page is its h1. */
  headingLevel?: 1 | 2;
}

export function Text(props: TextProps) {
  const p = withDefaults("Text", props) as Required<TextProps>;
  if (p.style === "heading")
    return props.headingLevel === 1 ? (
      <h1 className="fb-heading">{p.text}</h1>
    ) : (
      <h2 className="fb-heading">{p.text}</h2>
    );
  return <p className={p.style === "note" ? "fb-note" : "fb-text"}>{p.text}</p>;
}

// Videos ---------------------------------------------------------------------------------------------

export interface VideoListProps extends WithChildren {
  source?: "feed" | "related";
  title?: string;
  showTitle?: boolean;
  layout?: "grid" | "list";
  pageSize?: number;
  more?: "on scroll" | "button" | "none";
  /** Set by the Page: the list's heading is the feed page's h1 when it is the first heading. */
  headingLevel?: 1 | 2;
}

const DEFAULT_CARD = [<Thumbnail key="t" />, <Title key="ti" />, <Channel key="c" />, <Views key="v" />];

export function VideoList(props: VideoListProps) {
  const p = {
    headingLevel: 2,
    ...withDefaults("VideoList", props),
  } as Required<Omit<VideoListProps, "children">>;
  const page = useContext(PageContext);
  return p.source === "related" ? (
    <RelatedVideos {...p} parts={props.children} videoId={page.videoId} />
  ) : (
    <FeedVideos {...p} parts={props.children} />
  );
}

type ListSettings = Required<Omit<VideoListProps, "children">> & { parts: ComponentChildren };

function FeedVideos(p: ListSettings) {
  const feed = useFeed({ pageSize: p.pageSize });
  return <Cards list={feed} context="feed" {...p} />;
}

function RelatedVideos(p: ListSettings & { videoId: string | null }) {
  const related = useRelated(p.videoId ?? "", { limit: p.pageSize });
  return <Cards list={related} context="related" {...p} />;
}

function Cards({ list, context, ...p }: ListSettings & { list: VideoListData; context: "feed" | "related" }) {
  const more = useMoreOnScroll(p.more === "on scroll" ? list : { ...list, hasMore: false });
  const parts = Children.toArray(p.parts).length > 0 ? Children.toArray(p.parts) : DEFAULT_CARD;
  const first = list.loading && list.items.length === 0;
  return (
    <section className="fb-videos">
      {p.headingLevel === 1 ? (
        <h1 className={p.showTitle ? "fb-heading" : "fb-sr"}>{p.title}</h1>
      ) : (
        <h2 className={p.showTitle ? "fb-heading" : "fb-sr"}>{p.title}</h2>
      )}
      {list.error && list.items.length === 0 ? (
        <p className="fb-empty" role="alert">
          The videos could not be loaded. Please reload the page.
        </p>
      ) : !first && list.items.length === 0 ? (
        <p className="fb-empty">There are no videos to show right now.</p>
      ) : (
        <ul className={`fb-list fb-list--${p.layout}`} aria-label={p.title} aria-busy={list.loading}>
          {list.items.map((video, i) => (
            <li key={video.id}>
              <VideoSurface video={video} position={i} context={context} className="fb-card">
                <CardContext.Provider
                  value={{ video, position: i, titleLevel: p.headingLevel === 1 ? 2 : 3 }}
                >
                  {parts.map((part) => (isValidElement(part) ? cloneElement(part) : part))}
                </CardContext.Provider>
              </VideoSurface>
            </li>
          ))}
        </ul>
      )}
      {p.more === "on scroll" ? <div ref={more} /> : null}
      {p.more !== "none" && list.hasMore && !first ? (
        <div className="fb-more">
          <button type="button" className="fb-btn" onClick={list.loadMore} disabled={list.loading}>
            {list.loading ? "Loading…" : "Show more"}
          </button>
        </div>
      ) : null}
    </section>
  );
}

// One video's parts ----------------------------------------------------------------------------------

export interface ThumbnailProps {
  showDuration?: boolean;
}

export function Thumbnail(props: ThumbnailProps) {
  const p = withDefaults("Thumbnail", props) as Required<ThumbnailProps>;
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

export interface TitleProps {
  size?: "medium" | "small" | "large";
}

export function Title(props: TitleProps) {
  const p = withDefaults("Title", props) as Required<TitleProps>;
  const { video, inCard, titleLevel } = useShownVideo();
  if (!video) return null;
  const className = `fb-title fb-title--${p.size}`;
  if (!inCard) return <h1 className={className}>{video.title}</h1>;
  return titleLevel === 2 ? (
    <h2 className={className}>{video.title}</h2>
  ) : (
    <h3 className={className}>{video.title}</h3>
  );
}

export interface ChannelProps {
  showAvatar?: boolean;
}

export function Channel(props: ChannelProps) {
  const p = withDefaults("Channel", props) as Required<ChannelProps>;
  const { video } = useShownVideo();
  if (!video?.channel_name) return null;
  return (
    <span className="fb-channel">
      {p.showAvatar ? <Avatar name={video.channel_name} /> : null}
      <span>{video.channel_name}</span>
    </span>
  );
}

export function Views() {
  const { video } = useShownVideo();
  if (!video || video.view_count === null) return null;
  return <span className="fb-sub">{formatViews(video.view_count)}</span>;
}

export interface PublishedProps {
  format?: "relative" | "date";
}

export function Published(props: PublishedProps) {
  const p = withDefaults("Published", props) as Required<PublishedProps>;
  const { video } = useShownVideo();
  const when =
    p.format === "date"
      ? formatDate(video?.published_at ?? null)
      : formatRelative(video?.published_at ?? null);
  return when ? <span className="fb-sub">{when}</span> : null;
}

export interface TagsProps {
  max?: number;
}

export function Tags(props: TagsProps) {
  const p = withDefaults("Tags", props) as Required<TagsProps>;
  const { video } = useShownVideo();
  const tags = (video?.tags ?? []).slice(0, p.max);
  if (tags.length === 0) return null;
  return (
    <ul className="fb-tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>#{tag}</li>
      ))}
    </ul>
  );
}

export interface DescriptionProps {
  collapsed?: boolean;
}

export function Description(props: DescriptionProps) {
  const p = withDefaults("Description", props) as Required<DescriptionProps>;
  const { video, inCard } = useShownVideo();
  const [open, setOpen] = useState(!p.collapsed);
  if (!video?.description) return null;
  // A card is a link: it gets no button, only the folded text.
  if (inCard)
    return <span className={p.collapsed ? "fb-desc fb-clamped" : "fb-desc"}>{video.description}</span>;
  return (
    <section className="fb-desc-box" aria-label="Description">
      <p className={open ? "fb-desc" : "fb-desc fb-clamped"}>{video.description}</p>
      {p.collapsed ? (
        <button type="button" className="fb-link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : "Show more"}
        </button>
      ) : null}
    </section>
  );
}

export interface LikesProps {
  showDislike?: boolean;
}

export function Likes(props: LikesProps) {
  const p = withDefaults("Likes", props) as Required<LikesProps>;
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
        Like
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
          Dislike
        </button>
      ) : null}
    </span>
  );
}

export interface ActionsProps extends WithChildren {
  showChannel?: boolean;
}

export function Actions(props: ActionsProps) {
  const p = withDefaults("Actions", props) as Required<Omit<ActionsProps, "children">>;
  return (
    <div className="fb-actions">
      {p.showChannel ? <Channel /> : null}
      <div className="fb-actions-end">{props.children}</div>
    </div>
  );
}

export interface CommentsProps {
  limit?: number;
  title?: string;
}

export function Comments(props: CommentsProps) {
  const p = withDefaults("Comments", props) as Required<CommentsProps>;
  const { video } = useShownVideo();
  if (!video) return null;
  const comments = (video.comments ?? []).slice(0, p.limit);
  return (
    <section className="fb-comments" aria-label={p.title}>
      <h2 className="fb-heading">
        {p.title} ({video.comments?.length ?? 0})
      </h2>
      {comments.length === 0 ? (
        <p className="fb-sub">No comments yet.</p>
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

export interface PlayerProps {
  autoplay?: boolean;
}

export function Player(props: PlayerProps) {
  const p = withDefaults("Player", props) as Required<PlayerProps>;
  const { video } = useShownVideo();
  return video ? (
    <VideoSurface video={video} context="watch" className="fb-player" autoplay={p.autoplay} />
  ) : (
    <div className="fb-player" />
  );
}
