/** The feed page of the "list" style family (`list-parts.tsx`), for the three device variants. */
import { type FeedLayoutProps, t, useFeed } from "@feedlab/data";
import { FeedSurface } from "@feedlab/surfaces";
import { BASE_CSS, DEVICE_CSS, type Device, Row, Skeletons } from "./list-parts.tsx";
import { useMoreOnScroll } from "./shared.tsx";

/** The family's stylesheet without the watch page's rules. */
const FEED_CSS = `${BASE_CSS}.fl--mobile .fl-feed{padding:.75rem .75rem 2rem}
.fl--mobile .fl-head h1{font-size:1.1rem}
.fl--mobile .fl-list{gap:.25rem}
${DEVICE_CSS}`;

function Feed({ device }: { device: Device }) {
  const feed = useFeed({ pageSize: device === "mobile" ? 12 : 20 });
  const more = useMoreOnScroll(feed);
  const first = feed.loading && feed.items.length === 0;
  return (
    <FeedSurface className={`fl fl--${device}`}>
      <style>{FEED_CSS}</style>
      <main className="fl-feed">
        <header className="fl-head">
          <h1>{t("feed.heading")}</h1>
        </header>
        {feed.error && feed.items.length === 0 ? (
          <p className="fl-empty" role="alert">
            {t("feed.failed")}
          </p>
        ) : !first && feed.items.length === 0 ? (
          <p className="fl-empty">{t("feed.empty")}</p>
        ) : (
          <ul className="fl-list" aria-label={t("feed.heading")} aria-busy={feed.loading}>
            {feed.items.map((video, i) => (
              <li key={video.id}>
                <Row video={video} position={i} context="feed" />
              </li>
            ))}
            {first ? <Skeletons count={4} /> : null}
          </ul>
        )}
        <div ref={more} className="fl-more">
          {feed.hasMore && !first ? (
            <button type="button" className="fl-btn" onClick={feed.loadMore} disabled={feed.loading}>
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
