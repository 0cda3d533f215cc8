/**
 * The video list block (the catalog's group "videos"): the arm's recommended videos as cards, each
 * made of the blocks inside the list (a video's parts, `video.tsx`), which show that card's video.
 */
import { t, useFeed, useRelated, type VideoList as VideoListData } from "@feedlab/data";
import type { BlockProps } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { VideoSurface } from "@feedlab/surfaces";
import type { ComponentChildren } from "preact";
import { Children, cloneElement, isValidElement, useContext } from "react";
import { useMoreOnScroll } from "../presets/shared.tsx";
import { CardContext, PageContext, type Settings, type WithChildren, withDefaults } from "./scope.tsx";
import { Channel, Thumbnail, Title, Views } from "./video.tsx";

export type VideoListProps = BlockProps<"VideoList"> &
  WithChildren & {
    /** Set by the Page: the list's heading is the feed page's h1 when it is the first heading. */
    headingLevel?: 1 | 2;
  };

const DEFAULT_CARD = [<Thumbnail key="t" />, <Title key="ti" />, <Channel key="c" />, <Views key="v" />];

export function VideoList(props: VideoListProps) {
  const p = { ...withDefaults("VideoList", props), headingLevel: props.headingLevel ?? 2 };
  const page = useContext(PageContext);
  return p.source === "related" ? (
    <RelatedVideos {...p} parts={props.children} videoId={page.videoId} />
  ) : (
    <FeedVideos {...p} parts={props.children} />
  );
}

type ListSettings = Settings<"VideoList"> & { headingLevel: 1 | 2; parts: ComponentChildren };

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
          {t("feed.failed")}
        </p>
      ) : !first && list.items.length === 0 ? (
        <p className="fb-empty">{t("feed.emptyNow")}</p>
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
            {list.loading ? t("list.loading") : t("list.more")}
          </button>
        </div>
      ) : null}
    </section>
  );
}
