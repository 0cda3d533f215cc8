/** The feed page of the "grid" style family (`grid-parts.tsx`), for the three device variants. */
import { type FeedLayoutProps, t, useFeed, type Video } from "@feedlab/data";
import { FeedSurface, VideoSurface } from "@feedlab/surfaces";
import { BASE_CSS, CardText, DEVICE_CSS, type Device, Skeletons } from "./grid-parts.tsx";
import { Avatar, useMoreOnScroll, VideoThumb } from "./shared.tsx";

/** The family's stylesheet without the watch page's rules. */
const FEED_CSS = `${BASE_CSS}.fg--tablet .fg-feed{padding:1.25rem 1.25rem 3rem}
.fg--tablet .fg-grid{grid-template-columns:repeat(auto-fill,minmax(min(100%,17rem),1fr));gap:2rem 1.25rem}
.fg--mobile .fg-feed{padding:0 0 2rem}
.fg--mobile .fg-grid{grid-template-columns:1fr;gap:1.25rem}
.fg--mobile .fg-grid .fg-thumb{border-radius:0}
.fg--mobile .fg-grid .fg-body{padding:0 .75rem}
@media (min-width:700px){.fg--mobile .fg-grid{grid-template-columns:repeat(2,minmax(0,1fr));gap:1.5rem .75rem;padding:.75rem}.fg--mobile .fg-grid .fg-thumb{border-radius:10px}.fg--mobile .fg-grid .fg-body{padding:0}}
${DEVICE_CSS}`;

function GridCard({ video, position }: { video: Video; position: number }) {
  return (
    <VideoSurface video={video} position={position} context="feed" className="fg-card">
      <VideoThumb video={video} family="fg" eager={position < 8} />
      <span className="fg-body">
        <Avatar name={video.channel_name} />
        {/* Each card's title is a heading under the page's h1 (the list of recommended videos). */}
        <CardText video={video} level={2} />
      </span>
    </VideoSurface>
  );
}

function Feed({ device }: { device: Device }) {
  const feed = useFeed({ pageSize: device === "mobile" ? 12 : 20 });
  const more = useMoreOnScroll(feed);
  const first = feed.loading && feed.items.length === 0;
  return (
    <FeedSurface className={`fg fg--${device}`}>
      <style>{FEED_CSS}</style>
      <main className="fg-feed">
        <h1 className="fg-sr">{t("feed.heading")}</h1>
        {feed.error && feed.items.length === 0 ? (
          <p className="fg-empty" role="alert">
            {t("feed.failed")}
          </p>
        ) : !first && feed.items.length === 0 ? (
          <p className="fg-empty">{t("feed.empty")}</p>
        ) : (
          <ul className="fg-grid" aria-label={t("feed.heading")} aria-busy={feed.loading}>
            {feed.items.map((video, i) => (
              <li key={video.id}>
                <GridCard video={video} position={i} />
              </li>
            ))}
            {first ? <Skeletons count={device === "mobile" ? 3 : 8} /> : null}
          </ul>
        )}
        <div ref={more} className="fg-more">
          {feed.hasMore && !first ? (
            <button type="button" className="fg-btn" onClick={feed.loadMore} disabled={feed.loading}>
              {feed.loading ? t("list.loading") : t("list.more")}
            </button>
          ) : null}
        </div>
      </main>
    </FeedSurface>
  );
}

/** The feed layout of each device variant. */
export default {
  desktop: (_props: FeedLayoutProps) => <Feed device="desktop" />,
  tablet: (_props: FeedLayoutProps) => <Feed device="tablet" />,
  mobile: (_props: FeedLayoutProps) => <Feed device="mobile" />,
} satisfies Record<Device, unknown>;
