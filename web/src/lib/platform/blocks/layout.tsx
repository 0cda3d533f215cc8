/**
 * The layout blocks (the catalog's group "layout"): the Page at the root, and the blocks that arrange
 * others (Stack, Grid, SplitColumn, Tabs).
 */
import { t, useVideo } from "@feedlab/data";
import type { BlockProps } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { FeedSurface, WatchSurface } from "@feedlab/surfaces";
import type { ComponentChildren, VNode } from "preact";
import { Children, cloneElement, isValidElement, useState } from "react";
import { Text } from "./content.tsx";
import { PageContext, type WithChildren, withDefaults } from "./scope.tsx";
import { BLOCKS_CSS } from "./styles.ts";
import { Title } from "./video.tsx";
import { VideoList } from "./videos.tsx";

export type PageProps = BlockProps<"Page"> &
  WithChildren & {
    /** The watch page's video (a watch layout passes its `videoId`); absent on the feed page. */
    videoId?: string;
  };

/**
 * Every page has one h1, its headings in order. On the feed, the first heading of the tree (a Text
 * heading, or a Video list's heading) becomes the h1, with the Video list's cards one level below its
 * heading; a tree with neither gets a hidden h1. On the watch page, the Title of the page's video is
 * the h1; a tree without one gets the title as a hidden h1. (Blocks wrapped in components of a code
 * layout's own are not seen: such a layout heads its page itself.)
 */
export function Page(props: PageProps) {
  const p = withDefaults("Page", props);
  const style = { maxWidth: `${p.maxWidth}px`, padding: `${p.padding}px` };
  const className = `fb fb--${p.theme}`;
  if (props.videoId) {
    const hasTitle = containsTitle(props.children);
    const content = (title: string | null) => (
      <>
        <style>{BLOCKS_CSS}</style>
        <main className="fb-page" style={style}>
          {hasTitle ? null : <h1 className="fb-sr">{title ?? t("blocks.video")}</h1>}
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
          {promoted ? null : <h1 className="fb-sr">{t("blocks.videos")}</h1>}
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
            {t("video.unavailable")}
          </p>
        ) : null}
        {content(video?.title ?? null)}
      </WatchSurface>
    </PageContext.Provider>
  );
}

export type StackProps = BlockProps<"Stack"> & WithChildren;

const ALIGN = { stretch: "stretch", start: "flex-start", center: "center", end: "flex-end" } as const;

export function Stack(props: StackProps) {
  const p = withDefaults("Stack", props);
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

export type GridProps = BlockProps<"Grid"> & WithChildren;

export function Grid(props: GridProps) {
  const p = withDefaults("Grid", props);
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

export type SplitColumnProps = BlockProps<"SplitColumn"> & WithChildren;

export function SplitColumn(props: SplitColumnProps) {
  const p = withDefaults("SplitColumn", props);
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

export type TabsProps = BlockProps<"Tabs"> & WithChildren;

let tabsCount = 0;

export function Tabs(props: TabsProps) {
  const p = withDefaults("Tabs", props);
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
            {titles[i] ?? t("blocks.tab", { n: i + 1 })}
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
