/**
 * The "grid" style family: a neutral video-site look with a grid of cards on the feed and a player
 * with a related column on the watch page. One module serves the three device variants; like every
 * layout it imports only the platform namespace and `react`.
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
import { useState } from "react";
import { Avatar, ThumbDown, ThumbUp, useMoreOnScroll } from "./shared.tsx";

export type Device = "desktop" | "tablet" | "mobile";

const CSS = `
.fg{--fg-text:#0f0f0f;--fg-muted:#606060;--fg-line:#e5e5e5;--fg-chip:#f2f2f2;--fg-chip-hover:#e5e5e5;--fg-accent:#065fd4;
  background:#fff;color:var(--fg-text);min-height:calc(100vh - 3.5rem);font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
.fg *{box-sizing:border-box}
.fg h1,.fg h2,.fg h3,.fg p{margin:0}
.fg a{color:inherit;text-decoration:none}
.fg-sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.fg-feed{max-width:2200px;margin:0 auto;padding:1.5rem clamp(.75rem,3vw,2.5rem) 3rem}
.fg-grid{list-style:none;margin:0;padding:0;display:grid;gap:2.5rem 1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,18rem),1fr))}
.fg-card{display:flex;flex-direction:column;gap:.75rem;border-radius:12px;outline-offset:4px}
.fg-card:focus-visible{outline:2px solid var(--fg-accent)}
.fg-thumb{position:relative;display:block;aspect-ratio:16/9;border-radius:12px;overflow:hidden;background:#e9e9e9}
.fg-thumb img{display:block;width:100%;height:100%;object-fit:cover;transition:transform .25s ease}
.fg-card:hover .fg-thumb img{transform:scale(1.04)}
.fg-duration{position:absolute;right:.4rem;bottom:.4rem;padding:.1rem .3rem;border-radius:4px;background:rgb(0 0 0/.8);color:#fff;font-size:.75rem;font-weight:600;line-height:1.3;font-variant-numeric:tabular-nums}
.fg-body{display:flex;gap:.75rem;align-items:flex-start}
.fx-avatar{flex:none;display:grid;place-items:center;width:2.25rem;height:2.25rem;border-radius:50%;color:#fff;font-weight:700;font-size:.95rem}
.fg-text{min-width:0;display:flex;flex-direction:column;gap:.2rem}
.fg-title{font-size:1rem;font-weight:600;line-height:1.4;display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.fg-sub{font-size:.875rem;color:var(--fg-muted);line-height:1.4}
.fg-sub span+span::before{content:"\\2022";margin:0 .3rem}
.fg-more{display:flex;justify-content:center;padding:2rem 0 0}
.fg-btn{display:inline-flex;align-items:center;gap:.4rem;height:2.25rem;padding:0 1rem;border:0;border-radius:999px;background:var(--fg-chip);color:var(--fg-text);font:inherit;font-size:.875rem;font-weight:600;cursor:pointer}
.fg-btn:hover{background:var(--fg-chip-hover)}
.fg-btn:focus-visible{outline:2px solid var(--fg-accent);outline-offset:2px}
.fg-btn[aria-pressed="true"]{background:var(--fg-text);color:#fff}
.fg-btn svg{width:1.25rem;height:1.25rem;fill:currentColor}
.fg-empty{margin:15vh auto 0;max-width:28rem;text-align:center;color:var(--fg-muted)}
.fg-skel{background:linear-gradient(90deg,#eee 0,#f6f6f6 40%,#eee 80%);background-size:200% 100%;animation:fg-shine 1.2s linear infinite}
@keyframes fg-shine{to{background-position:-200% 0}}
.fg-skel-line{height:.8rem;border-radius:4px;margin-top:.4rem}
.fg-watch{display:grid;grid-template-columns:minmax(0,1fr) 25rem;gap:1.5rem;max-width:1760px;margin:0 auto;padding:1.5rem clamp(.75rem,3vw,2.5rem) 3rem}
.fg-player{aspect-ratio:16/9;background:#000;border-radius:12px;overflow:hidden}
.fg-player video,.fg-player iframe,.fg-player>div,.fg-player>div>div{display:block;width:100%;height:100%;border:0;background:#000}
.fg-player [data-feedlab-player-error]{display:grid;place-items:center;color:#eee;padding:1rem;text-align:center}
.fg-player [data-feedlab-player-error] a{color:#9ecbff}
.fg-watch-title{font-size:1.25rem;font-weight:700;line-height:1.4;margin-top:.9rem}
.fg-owner{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1rem;margin-top:.75rem}
.fg-owner .fx-avatar{width:2.5rem;height:2.5rem}
.fg-owner-name{font-weight:600;font-size:1rem}
.fg-actions{display:flex;gap:.5rem;margin-left:auto}
.fg-desc{margin-top:.9rem;padding:.75rem .9rem;border-radius:12px;background:var(--fg-chip);font-size:.9rem;line-height:1.5}
.fg-desc-meta{font-weight:600}
.fg-tags{display:inline-flex;flex-wrap:wrap;gap:0 .5rem;margin:0 0 0 .5rem;padding:0;list-style:none;color:var(--fg-accent);font-weight:500}
.fg-desc-text{white-space:pre-line;margin-top:.35rem}
.fg-desc-text.fg-clamped{display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.fg-link{border:0;background:none;padding:0;margin-top:.35rem;font:inherit;font-weight:600;cursor:pointer;color:var(--fg-text)}
.fg-comments{margin-top:1.5rem}
.fg-comments h2{font-size:1.15rem;font-weight:700;margin-bottom:1rem}
.fg-comments ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:1.25rem}
.fg-comment{display:flex;gap:.9rem}
.fg-comment-author{font-size:.8rem;font-weight:600}
.fg-comment p{font-size:.9rem;line-height:1.45}
.fg-related{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.6rem}
.fg-compact{flex-direction:row;gap:.6rem}
.fg-compact .fg-thumb{flex:0 0 10.5rem;border-radius:8px}
.fg-compact .fg-title{font-size:.875rem}
.fg-compact .fg-sub{font-size:.775rem}
.fg-aside-title{font-size:1rem;font-weight:700;margin-bottom:.75rem}
.fg-muted{color:var(--fg-muted);font-size:.9rem}
@media (max-width:1100px){.fg-watch{grid-template-columns:minmax(0,1fr)}}
.fg--tablet .fg-feed{padding:1.25rem 1.25rem 3rem}
.fg--tablet .fg-grid{grid-template-columns:repeat(auto-fill,minmax(min(100%,17rem),1fr));gap:2rem 1.25rem}
.fg--tablet .fg-watch{grid-template-columns:minmax(0,1fr);max-width:980px;padding:1rem 1.25rem 3rem}
.fg--tablet .fg-related{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,14rem),1fr));gap:1.5rem 1rem}
.fg--tablet .fg-related .fg-card{flex-direction:column}
.fg--tablet .fg-related .fg-thumb{flex:none}
.fg--tablet .fg-btn{height:2.75rem;padding:0 1.2rem}
.fg--mobile .fg-feed{padding:0 0 2rem}
.fg--mobile .fg-grid{grid-template-columns:1fr;gap:1.25rem}
.fg--mobile .fg-grid .fg-thumb{border-radius:0}
.fg--mobile .fg-grid .fg-body{padding:0 .75rem}
.fg--mobile .fg-title{font-size:.95rem}
.fg--mobile .fg-sub{font-size:.8rem}
.fg--mobile .fg-watch{grid-template-columns:minmax(0,1fr);padding:0 0 2rem;gap:1rem}
.fg--mobile .fg-player{border-radius:0;position:sticky;top:3.5rem;z-index:5}
.fg--mobile .fg-info{padding:0 .75rem}
.fg--mobile .fg-watch-title{font-size:1.05rem;margin-top:.25rem}
.fg--mobile .fg-actions{margin-left:0;width:100%;overflow-x:auto}
.fg--mobile .fg-btn{height:2.5rem}
.fg--mobile .fg-secondary{padding:0 .75rem}
.fg--mobile .fg-compact .fg-thumb{flex-basis:9.5rem}
.fg--mobile .fg-compact .fg-title{font-size:.875rem}
.fg--mobile .fg-compact .fg-sub{font-size:.75rem}
@media (min-width:700px){.fg--mobile .fg-grid{grid-template-columns:repeat(2,minmax(0,1fr));gap:1.5rem .75rem;padding:.75rem}.fg--mobile .fg-grid .fg-thumb{border-radius:10px}.fg--mobile .fg-grid .fg-body{padding:0}}
`;

function Meta({ video }: { video: Video }) {
  const age = formatRelative(video.published_at);
  return (
    <p className="fg-sub">
      <span>{formatViews(video.view_count)}</span>
      {age ? <span>{age}</span> : null}
    </p>
  );
}

function Thumb({ video, eager }: { video: Video; eager?: boolean }) {
  const duration = formatDuration(video.duration_seconds);
  return (
    <span className="fg-thumb">
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
      {duration ? <span className="fg-duration">{duration}</span> : null}
    </span>
  );
}

function GridCard({ video, position }: { video: Video; position: number }) {
  return (
    <VideoSurface video={video} position={position} context="feed" className="fg-card">
      <Thumb video={video} eager={position < 8} />
      <span className="fg-body">
        <Avatar name={video.channel_name} />
        <span className="fg-text">
          <h3 className="fg-title">{video.title}</h3>
          {video.channel_name ? <span className="fg-sub">{video.channel_name}</span> : null}
          <Meta video={video} />
        </span>
      </span>
    </VideoSurface>
  );
}

function RelatedCard({ video, position }: { video: Video; position: number }) {
  return (
    <VideoSurface video={video} position={position} context="related" className="fg-card fg-compact">
      <Thumb video={video} />
      <span className="fg-text">
        <h3 className="fg-title">{video.title}</h3>
        {video.channel_name ? <span className="fg-sub">{video.channel_name}</span> : null}
        <Meta video={video} />
      </span>
    </VideoSurface>
  );
}

function Skeletons({ count, compact }: { count: number; compact?: boolean }) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => (
        <li key={`s${i}`} aria-hidden="true">
          <div className={compact ? "fg-card fg-compact" : "fg-card"}>
            <span className="fg-thumb fg-skel" />
            <span className="fg-text" style={{ flex: 1 }}>
              <span className="fg-skel fg-skel-line" style={{ width: "90%" }} />
              <span className="fg-skel fg-skel-line" style={{ width: "60%" }} />
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
    <FeedSurface className={`fg fg--${device}`}>
      <style>{CSS}</style>
      <main className="fg-feed">
        <h1 className="fg-sr">Recommended videos</h1>
        {feed.error && feed.items.length === 0 ? (
          <p className="fg-empty" role="alert">
            The videos could not be loaded. Please reload the page.
          </p>
        ) : !first && feed.items.length === 0 ? (
          <p className="fg-empty">There are no videos to show right now. Please check back later.</p>
        ) : (
          <ul className="fg-grid" aria-label="Recommended videos" aria-busy={feed.loading}>
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
              {feed.loading ? "Loading…" : "Show more"}
            </button>
          ) : null}
        </div>
      </main>
    </FeedSurface>
  );
}

function Description({ video, collapsible: compact }: { video: Video; collapsible: boolean }) {
  const text = video.description ?? "";
  // Collapsed to two lines only where there is more than that to hide.
  const collapsible = compact && (text.length > 110 || text.split("\n").length > 2);
  const [open, setOpen] = useState(!collapsible);
  const tags = video.tags ?? [];
  const date = formatDate(video.published_at);
  return (
    <section className="fg-desc" aria-label="Description">
      <div className="fg-desc-meta">
        {formatViews(video.view_count)}
        {date ? ` · ${date}` : ""}
        {tags.length > 0 ? (
          <ul className="fg-tags" aria-label="Tags">
            {tags.map((tag) => (
              <li key={tag}>#{tag}</li>
            ))}
          </ul>
        ) : null}
      </div>
      {video.description ? (
        <>
          <p className={open ? "fg-desc-text" : "fg-desc-text fg-clamped"}>{video.description}</p>
          {collapsible ? (
            <button type="button" className="fg-link" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? "Show less" : "Show more"}
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Comments({ video }: { video: Video }) {
  const comments = video.comments ?? [];
  return (
    <section className="fg-comments" aria-labelledby="fg-comments-heading">
      <h2 id="fg-comments-heading">
        {comments.length} {comments.length === 1 ? "Comment" : "Comments"}
      </h2>
      {comments.length === 0 ? (
        <p className="fg-muted">No comments yet.</p>
      ) : (
        <ul>
          {comments.map((c, i) => (
            <li key={i} className="fg-comment">
              <Avatar name={c.author} />
              <div>
                <p className="fg-comment-author">@{c.author}</p>
                <p>{c.text}</p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Watch({ device, videoId }: { device: Device } & WatchLayoutProps) {
  const { video, error } = useVideo(videoId);
  const related = useRelated(videoId, { limit: device === "desktop" ? 12 : 10 });
  const likes = useLikes(video);
  const more = useMoreOnScroll(related);
  const relatedList = (
    <aside className="fg-secondary" aria-labelledby="fg-related-heading">
      <h2 id="fg-related-heading" className={device === "desktop" ? "fg-sr" : "fg-aside-title"}>
        Related videos
      </h2>
      {related.error && related.items.length === 0 ? (
        <p className="fg-muted">Related videos could not be loaded.</p>
      ) : !related.loading && related.items.length === 0 ? (
        <p className="fg-muted">No related videos.</p>
      ) : (
        <ul className="fg-related" aria-label="Related videos">
          {related.items.map((v, i) => (
            <li key={v.id}>
              <RelatedCard video={v} position={i} />
            </li>
          ))}
          {related.loading && related.items.length === 0 ? <Skeletons count={4} compact /> : null}
        </ul>
      )}
      <div ref={more} />
    </aside>
  );
  return (
    <WatchSurface video={video} className={`fg fg--${device}`}>
      <style>{CSS}</style>
      <main className="fg-watch">
        <div className="fg-primary">
          {video ? (
            <VideoSurface video={video} context="watch" className="fg-player" />
          ) : (
            <div className="fg-player" />
          )}
          {error ? (
            <p className="fg-empty" role="alert">
              This video is not available.
            </p>
          ) : video ? (
            <div className="fg-info">
              <h1 className="fg-watch-title">{video.title}</h1>
              <div className="fg-owner">
                <Avatar name={video.channel_name} />
                <div>
                  <p className="fg-owner-name">{video.channel_name ?? "Unknown channel"}</p>
                  {video.category ? <p className="fg-sub">{video.category}</p> : null}
                </div>
                <div className="fg-actions">
                  <button type="button" className="fg-btn" aria-pressed={likes.liked} onClick={likes.like}>
                    <ThumbUp />
                    Like
                  </button>
                  <button
                    type="button"
                    className="fg-btn"
                    aria-pressed={likes.disliked}
                    onClick={likes.dislike}
                  >
                    <ThumbDown />
                    Dislike
                  </button>
                </div>
              </div>
              <Description video={video} collapsible={device === "mobile"} />
              {device === "desktop" ? <Comments video={video} /> : null}
            </div>
          ) : null}
        </div>
        {relatedList}
        {video && device !== "desktop" ? (
          <div className="fg-info">
            <Comments video={video} />
          </div>
        ) : null}
      </main>
    </WatchSurface>
  );
}

/** The grid family for one device: its feed page and its watch page. */
export function gridPreset(device: Device) {
  return {
    feed: (_props: FeedLayoutProps) => <Feed device={device} />,
    watch: (props: WatchLayoutProps) => <Watch device={device} videoId={props.videoId} />,
  };
}
