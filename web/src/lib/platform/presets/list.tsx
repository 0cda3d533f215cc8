/**
 * The "list" style family: a calmer, reading-first look. The feed is a column of rows (thumbnail,
 * title, channel, a line of description), and the watch page puts the player on a dark stage with the
 * details and an "Up next" list below. One module serves the three device variants; like every layout
 * it imports only the platform namespace and `react`.
 */
import {
  type FeedLayoutProps,
  formatDate,
  formatDuration,
  formatRelative,
  formatViews,
  useFeed,
  useLikes,
  useRelated,
  useVideo,
  type Video,
  type WatchLayoutProps,
} from "@feedlab/data";
import { FeedSurface, VideoSurface, WatchSurface } from "@feedlab/surfaces";
import { Avatar, ThumbDown, ThumbUp, useMoreOnScroll } from "./shared.tsx";

export type Device = "desktop" | "tablet" | "mobile";

const CSS = `
.fl{--fl-bg:#f3f4f6;--fl-card:#fff;--fl-text:#16181d;--fl-muted:#5d6470;--fl-line:#e2e5ea;--fl-accent:#2d5bd7;
  background:var(--fl-bg);color:var(--fl-text);min-height:calc(100vh - 3.5rem);font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
.fl *{box-sizing:border-box}
.fl h1,.fl h2,.fl h3,.fl p{margin:0}
.fl a{color:inherit;text-decoration:none}
.fl-sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.fx-avatar{flex:none;display:grid;place-items:center;width:1.6rem;height:1.6rem;border-radius:50%;color:#fff;font-weight:700;font-size:.75rem}
.fl-feed{max-width:1080px;margin:0 auto;padding:1.75rem 1.25rem 3rem}
.fl-head{display:flex;align-items:baseline;justify-content:space-between;margin-bottom:1rem}
.fl-head h1{font-size:1.35rem;font-weight:700;letter-spacing:-.01em}
.fl-list{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.85rem}
.fl-row{display:flex;gap:1.1rem;padding:.75rem;background:var(--fl-card);border:1px solid var(--fl-line);border-radius:10px;transition:border-color .15s,box-shadow .15s}
.fl-row:hover{border-color:#c9ced8;box-shadow:0 4px 14px rgb(20 30 50/.07)}
.fl-row:focus-visible{outline:2px solid var(--fl-accent);outline-offset:2px}
.fl-thumb{position:relative;flex:0 0 22rem;display:block;aspect-ratio:16/9;border-radius:6px;overflow:hidden;background:#dfe2e7}
.fl-thumb img{display:block;width:100%;height:100%;object-fit:cover}
.fl-duration{position:absolute;right:.35rem;bottom:.35rem;padding:.05rem .3rem;border-radius:3px;background:rgb(10 12 16/.82);color:#fff;font-size:.72rem;font-weight:600;font-variant-numeric:tabular-nums}
.fl-info{min-width:0;display:flex;flex-direction:column;gap:.35rem;padding-top:.15rem}
.fl-title{font-size:1.12rem;font-weight:650;line-height:1.35;display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.fl-row:hover .fl-title{color:var(--fl-accent)}
.fl-meta{font-size:.84rem;color:var(--fl-muted)}
.fl-meta span+span::before{content:"\\00b7";margin:0 .35rem}
.fl-channel{display:flex;align-items:center;gap:.45rem;font-size:.86rem;color:var(--fl-muted);font-weight:500;margin-top:.2rem}
.fl-snippet{font-size:.86rem;color:var(--fl-muted);line-height:1.45;display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;margin-top:.2rem}
.fl-more{display:flex;justify-content:center;padding-top:1.5rem}
.fl-btn{display:inline-flex;align-items:center;gap:.4rem;height:2.3rem;padding:0 1rem;border:1px solid var(--fl-line);border-radius:8px;background:var(--fl-card);color:var(--fl-text);font:inherit;font-size:.875rem;font-weight:600;cursor:pointer}
.fl-btn:hover{border-color:#c2c8d2;background:#fafbfc}
.fl-btn:focus-visible{outline:2px solid var(--fl-accent);outline-offset:2px}
.fl-btn[aria-pressed="true"]{background:var(--fl-accent);border-color:var(--fl-accent);color:#fff}
.fl-btn svg{width:1.1rem;height:1.1rem;fill:currentColor}
.fl-empty{margin:12vh auto 0;max-width:28rem;text-align:center;color:var(--fl-muted)}
.fl-skel{background:linear-gradient(90deg,#e6e8ec 0,#f1f2f5 40%,#e6e8ec 80%);background-size:200% 100%;animation:fl-shine 1.2s linear infinite}
@keyframes fl-shine{to{background-position:-200% 0}}
.fl-skel-line{display:block;height:.8rem;border-radius:4px;margin-top:.5rem}
.fl-stage{background:#0d0f13;display:flex;justify-content:center}
.fl-player{width:min(100%,calc((100vh - 12rem)*16/9),1280px);aspect-ratio:16/9;background:#000}
.fl-player video,.fl-player iframe,.fl-player>div,.fl-player>div>div{display:block;width:100%;height:100%;border:0;background:#000}
.fl-player [data-feedlab-player-error]{display:grid;place-items:center;color:#eee;padding:1rem;text-align:center}
.fl-player [data-feedlab-player-error] a{color:#9ecbff}
.fl-watch{max-width:1280px;margin:0 auto;padding:1.25rem 1.25rem 3rem;display:grid;grid-template-columns:minmax(0,1fr) 23rem;gap:2rem}
.fl-panel{background:var(--fl-card);border:1px solid var(--fl-line);border-radius:10px;padding:1rem 1.1rem}
.fl-watch-title{font-size:1.35rem;font-weight:700;line-height:1.3;letter-spacing:-.01em}
.fl-byline{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;margin-top:.75rem}
.fl-byline .fx-avatar{width:2.2rem;height:2.2rem;font-size:.9rem}
.fl-owner{font-weight:600}
.fl-actions{display:flex;gap:.5rem;margin-left:auto}
.fl-stats{margin-top:1rem;font-size:.86rem;color:var(--fl-muted);font-weight:500}
.fl-desc{margin-top:.5rem;font-size:.93rem;line-height:1.55;white-space:pre-line}
.fl-tags{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;margin:.85rem 0 0;padding:0}
.fl-tags li{padding:.15rem .6rem;border-radius:999px;background:#eef1f6;color:#3a4454;font-size:.8rem;font-weight:500}
.fl-comments{margin-top:1rem}
.fl-comments h2,.fl-aside-title{font-size:1rem;font-weight:700;margin-bottom:.85rem}
.fl-comments ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:1rem}
.fl-comment{display:flex;gap:.75rem}
.fl-comment .fx-avatar{width:2rem;height:2rem;font-size:.8rem}
.fl-comment-author{font-size:.82rem;font-weight:650}
.fl-comment p{font-size:.9rem;line-height:1.45}
.fl-muted{color:var(--fl-muted);font-size:.9rem}
.fl-upnext{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.5rem}
.fl-upnext .fl-row{padding:.45rem;gap:.7rem;border-color:transparent;background:transparent}
.fl-upnext .fl-row:hover{background:var(--fl-card);border-color:var(--fl-line);box-shadow:none}
.fl-upnext .fl-thumb{flex-basis:9.5rem}
.fl-upnext .fl-title{font-size:.88rem}
.fl-upnext .fl-meta,.fl-upnext .fl-channel{font-size:.76rem;margin:0}
@media (max-width:980px){.fl-watch{grid-template-columns:minmax(0,1fr)}}
@media (max-width:760px){.fl-thumb{flex-basis:42%}.fl-snippet{display:none}}
.fl--tablet .fl-thumb{flex-basis:15rem}
.fl--tablet .fl-snippet{-webkit-line-clamp:1;line-clamp:1}
.fl--tablet .fl-watch{grid-template-columns:minmax(0,1fr);max-width:900px}
.fl--tablet .fl-upnext .fl-thumb{flex-basis:12rem}
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
.fl--mobile .fl-player{width:100%}
.fl--mobile .fl-watch{grid-template-columns:minmax(0,1fr);padding:.75rem .75rem 2rem;gap:1rem}
.fl--mobile .fl-panel{border:0;border-radius:0;padding:0;background:transparent}
.fl--mobile .fl-watch-title{font-size:1.05rem}
.fl--mobile .fl-actions{margin-left:0;width:100%}
.fl--mobile .fl-btn{height:2.5rem;flex:1;justify-content:center}
`;

function Meta({ video }: { video: Video }) {
  const age = formatRelative(video.published_at);
  return (
    <span className="fl-meta">
      <span>{formatViews(video.view_count)}</span>
      {age ? <span>{age}</span> : null}
    </span>
  );
}

function Thumb({ video, eager }: { video: Video; eager?: boolean }) {
  const duration = formatDuration(video.duration_seconds);
  return (
    <span className="fl-thumb">
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
      {duration ? <span className="fl-duration">{duration}</span> : null}
    </span>
  );
}

function Row({ video, position, context }: { video: Video; position: number; context: "feed" | "related" }) {
  const snippet = context === "feed" ? video.description?.split("\n")[0] : null;
  return (
    <VideoSurface video={video} position={position} context={context} className="fl-row">
      <Thumb video={video} eager={context === "feed" && position < 6} />
      <span className="fl-info">
        <h3 className="fl-title">{video.title}</h3>
        <Meta video={video} />
        {video.channel_name ? (
          <span className="fl-channel">
            <Avatar name={video.channel_name} />
            {video.channel_name}
          </span>
        ) : null}
        {snippet ? <span className="fl-snippet">{snippet}</span> : null}
      </span>
    </VideoSurface>
  );
}

function Skeletons({ count }: { count: number }) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => (
        <li key={`s${i}`} aria-hidden="true">
          <div className="fl-row">
            <span className="fl-thumb fl-skel" />
            <span className="fl-info" style={{ flex: 1 }}>
              <span className="fl-skel fl-skel-line" style={{ width: "80%" }} />
              <span className="fl-skel fl-skel-line" style={{ width: "45%" }} />
            </span>
          </div>
        </li>
      ))}
    </>
  );
}

function Feed({ device }: { device: Device }) {
  const feed = useFeed({ pageSize: device === "mobile" ? 12 : 20 });
  const more = useMoreOnScroll(feed);
  const first = feed.loading && feed.items.length === 0;
  return (
    <FeedSurface className={`fl fl--${device}`}>
      <style>{CSS}</style>
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

function Details({ video }: { video: Video }) {
  const likes = useLikes(video);
  const tags = video.tags ?? [];
  const date = formatDate(video.published_at);
  const comments = video.comments ?? [];
  return (
    <div className="fl-main">
      <section className="fl-panel" aria-label="Video details">
        <h1 className="fl-watch-title">{video.title}</h1>
        <div className="fl-byline">
          <Avatar name={video.channel_name} />
          <span className="fl-owner">{video.channel_name ?? "Unknown channel"}</span>
          <div className="fl-actions">
            <button type="button" className="fl-btn" aria-pressed={likes.liked} onClick={likes.like}>
              <ThumbUp />
              Like
            </button>
            <button type="button" className="fl-btn" aria-pressed={likes.disliked} onClick={likes.dislike}>
              <ThumbDown />
              Dislike
            </button>
          </div>
        </div>
        <p className="fl-stats">
          {formatViews(video.view_count)}
          {date ? ` · ${date}` : ""}
          {video.category ? ` · ${video.category}` : ""}
        </p>
        {video.description ? <p className="fl-desc">{video.description}</p> : null}
        {tags.length > 0 ? (
          <ul className="fl-tags" aria-label="Tags">
            {tags.map((tag) => (
              <li key={tag}>{tag}</li>
            ))}
          </ul>
        ) : null}
      </section>
      <section className="fl-panel fl-comments" aria-labelledby="fl-comments-heading">
        <h2 id="fl-comments-heading">
          {comments.length} {comments.length === 1 ? "Comment" : "Comments"}
        </h2>
        {comments.length === 0 ? (
          <p className="fl-muted">No comments yet.</p>
        ) : (
          <ul>
            {comments.map((c, i) => (
              <li key={i} className="fl-comment">
                <Avatar name={c.author} />
                <div>
                  <p className="fl-comment-author">{c.author}</p>
                  <p>{c.text}</p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function Watch({ device, videoId }: { device: Device } & WatchLayoutProps) {
  const { video, error } = useVideo(videoId);
  const related = useRelated(videoId, { limit: 10 });
  const more = useMoreOnScroll(related);
  return (
    <WatchSurface video={video} className={`fl fl--${device}`}>
      <style>{CSS}</style>
      <div className="fl-stage">
        {video ? (
          <VideoSurface video={video} context="watch" className="fl-player" />
        ) : (
          <div className="fl-player" />
        )}
      </div>
      <main className="fl-watch">
        {error ? (
          <p className="fl-empty" role="alert">
            This video is not available.
          </p>
        ) : video ? (
          <Details video={video} />
        ) : (
          <div />
        )}
        <aside aria-labelledby="fl-upnext-heading">
          <h2 id="fl-upnext-heading" className="fl-aside-title">
            Up next
          </h2>
          {related.error && related.items.length === 0 ? (
            <p className="fl-muted">Related videos could not be loaded.</p>
          ) : !related.loading && related.items.length === 0 ? (
            <p className="fl-muted">No related videos.</p>
          ) : (
            <ul className="fl-upnext" aria-label="Related videos">
              {related.items.map((v, i) => (
                <li key={v.id}>
                  <Row video={v} position={i} context="related" />
                </li>
              ))}
              {related.loading && related.items.length === 0 ? <Skeletons count={3} /> : null}
            </ul>
          )}
          <div ref={more} />
        </aside>
      </main>
    </WatchSurface>
  );
}

/** The list family for one device: its feed page and its watch page. */
export function listPreset(device: Device) {
  return {
    feed: (_props: FeedLayoutProps) => <Feed device={device} />,
    watch: (props: WatchLayoutProps) => <Watch device={device} videoId={props.videoId} />,
  };
}
