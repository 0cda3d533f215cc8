/** The feed page of the "list" style family (`list-parts.tsx`), for the three device variants. */
import { type FeedLayoutProps, useFeed } from "@feedlab/data";
import { FeedSurface } from "@feedlab/surfaces";
import { BASE_CSS, type Device, Row, Skeletons } from "./list-parts.tsx";
import { useMoreOnScroll } from "./shared.tsx";

/** The family's stylesheet without the watch page's rules. */
const FEED_CSS = `${BASE_CSS}@media (max-width:760px){.fl-thumb{flex-basis:42%}.fl-snippet{display:none}}
.fl--tablet .fl-thumb{flex-basis:15rem}
.fl--tablet .fl-snippet{-webkit-line-clamp:1;line-clamp:1}
.fl--tablet .fl-btn{height:2.75rem;padding:0 1.2rem}
.fl--mobile .fl-feed{padding:.75rem .75rem 2rem}
.fl--mobile .fl-head h1{font-size:1.1rem}
.fl--mobile .fl-list{gap:.25rem}
.fl--mobile .fl-row{padding:.45rem 0;gap:.7rem;background:transparent;border:0;border-radius:0}
.fl--mobile .fl-row:hover{box-shadow:none}
.fl--mobile .fl-thumb{flex-basis:42%;border-radius:8px}
.fl--mobile .fl-title{font-size:.9rem}
.fl--mobile .fl-meta,.fl--mobile .fl-channel{font-size:.76rem;margin:0}
.fl--mobile .fl-channel .fx-avatar{display:none}
.fl--mobile .fl-snippet{display:none}
.fl--mobile .fl-btn{height:2.5rem;flex:1;justify-content:center}
`;

function Feed({ device }: { device: Device }) {
  const feed = useFeed({ pageSize: device === "mobile" ? 12 : 20 });
  const more = useMoreOnScroll(feed);
  const first = feed.loading && feed.items.length === 0;
  return (
    <FeedSurface className={`fl fl--${device}`}>
      <style>{FEED_CSS}</style>
      <main className="fl-feed">
        <header className="fl-head">
          <h1>Recommended videos</h1>
        </header>
        {feed.error && feed.items.length === 0 ? (
          <p className="fl-empty" role="alert">
            The videos could not be loaded. Please reload the page.
          </p>
        ) : !first && feed.items.length === 0 ? (
          <p className="fl-empty">There are no videos to show right now. Please check back later.</p>
        ) : (
          <ul className="fl-list" aria-label="Recommended videos" aria-busy={feed.loading}>
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
              {feed.loading ? "Loading…" : "Show more"}
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
