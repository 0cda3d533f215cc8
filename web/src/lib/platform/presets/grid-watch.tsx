/** The watch page of the "grid" style family (`grid-parts.tsx`), for the three device variants. */
import {
  formatDate,
  formatViews,
  t,
  useLikes,
  useRelated,
  useVideo,
  type Video,
  type WatchLayoutProps,
} from "@feedlab/data";
import { VideoSurface, WatchSurface } from "@feedlab/surfaces";
import { useState } from "react";
import { BASE_CSS, CardText, DEVICE_CSS, type Device, Skeletons } from "./grid-parts.tsx";
import { Avatar, RelatedList, ThumbDown, ThumbUp, useMoreOnScroll, VideoThumb } from "./shared.tsx";

/** The family's stylesheet without the feed page's rules. */
const WATCH_CSS = `${BASE_CSS}.fg-watch{display:grid;grid-template-columns:minmax(0,1fr) 25rem;gap:1.5rem;max-width:1760px;margin:0 auto;padding:1.5rem clamp(.75rem,3vw,2.5rem) 3rem}
.fg-player{aspect-ratio:16/9;background:#000;border-radius:12px;overflow:hidden}
.fg-player video,.fg-player iframe,.fg-player>div,.fg-player>div>div{display:block;width:100%;height:100%;border:0;background:#000}
.fg-player [data-feedlab-player-error]{display:grid;place-items:center;color:#eee;padding:1rem;text-align:center}
.fg-player [data-feedlab-player-error] a{color:#9ecbff}
.fg-watch-title{font-size:1.25rem;font-weight:700;line-height:1.4;margin-top:.9rem}
.fg-owner{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1rem;margin-top:.75rem}
.fg-owner .fx-avatar{width:2.5rem;height:2.5rem}
.fg-owner-name{font-weight:600;font-size:1rem}
.fg-actions{display:flex;gap:.5rem;margin-inline-start:auto}
.fg-desc{margin-top:.9rem;padding:.75rem .9rem;border-radius:12px;background:var(--fg-chip);font-size:.9rem;line-height:1.5}
.fg-desc-meta{font-weight:600}
.fg-tags{display:inline-flex;flex-wrap:wrap;gap:0 .5rem;margin:0;margin-inline-start:.5rem;padding:0;list-style:none;color:var(--fg-accent);font-weight:500}
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
.fg--tablet .fg-watch{grid-template-columns:minmax(0,1fr);max-width:980px;padding:1rem 1.25rem 3rem}
.fg--tablet .fg-related{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,14rem),1fr));gap:1.5rem 1rem}
.fg--tablet .fg-related .fg-card{flex-direction:column}
.fg--tablet .fg-related .fg-thumb{flex:none}
.fg--mobile .fg-watch{grid-template-columns:minmax(0,1fr);padding:0 0 2rem;gap:1rem}
.fg--mobile .fg-player{border-radius:0;position:sticky;top:3.5rem;z-index:5}
.fg--mobile .fg-info{padding:0 .75rem}
.fg--mobile .fg-watch-title{font-size:1.05rem;margin-top:.25rem}
.fg--mobile .fg-actions{margin-inline-start:0;width:100%;overflow-x:auto}
.fg--mobile .fg-secondary{padding:0 .75rem}
.fg--mobile .fg-compact .fg-thumb{flex-basis:9.5rem}
.fg--mobile .fg-compact .fg-title{font-size:.875rem}
.fg--mobile .fg-compact .fg-sub{font-size:.75rem}
${DEVICE_CSS}`;

function RelatedCard({ video, position }: { video: Video; position: number }) {
  return (
    <VideoSurface video={video} position={position} context="related" className="fg-card fg-compact">
      <VideoThumb video={video} family="fg" />
      <CardText video={video} level={3} />
    </VideoSurface>
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
    <section className="fg-desc" aria-label={t("video.description")}>
      <div className="fg-desc-meta">
        {[formatViews(video.view_count), date].filter(Boolean).join(" · ")}
        {tags.length > 0 ? (
          <ul className="fg-tags" aria-label={t("video.tags")}>
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
              {open ? t("video.showLess") : t("video.showMore")}
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
      <h2 id="fg-comments-heading">{t("video.comments", { count: comments.length })}</h2>
      {comments.length === 0 ? (
        <p className="fg-muted">{t("video.noComments")}</p>
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
    <section className="fg-secondary" aria-labelledby="fg-related-heading">
      <h2 id="fg-related-heading" className={device === "desktop" ? "fg-sr" : "fg-aside-title"}>
        {t("video.related")}
      </h2>
      <RelatedList
        related={related}
        family="fg"
        className="fg-related"
        skeletons={<Skeletons count={4} compact />}
        card={(v, i) => <RelatedCard video={v} position={i} />}
      />
      <div ref={more} />
    </section>
  );
  return (
    <WatchSurface video={video} className={`fg fg--${device}`}>
      <style>{WATCH_CSS}</style>
      <main className="fg-watch">
        <div className="fg-primary">
          {video ? (
            <VideoSurface video={video} context="watch" className="fg-player" />
          ) : (
            <div className="fg-player" />
          )}
          {error ? (
            <p className="fg-empty" role="alert">
              {t("video.unavailable")}
            </p>
          ) : video ? (
            <div className="fg-info">
              <h1 className="fg-watch-title">
                <bdi>{video.title}</bdi>
              </h1>
              <div className="fg-owner">
                <Avatar name={video.channel_name} />
                <div>
                  <p className="fg-owner-name">{video.channel_name ?? t("video.unknownChannel")}</p>
                  {video.category ? <p className="fg-sub">{video.category}</p> : null}
                </div>
                <div className="fg-actions">
                  <button type="button" className="fg-btn" aria-pressed={likes.liked} onClick={likes.like}>
                    <ThumbUp />
                    {t("video.like")}
                  </button>
                  <button
                    type="button"
                    className="fg-btn"
                    aria-pressed={likes.disliked}
                    onClick={likes.dislike}
                  >
                    <ThumbDown />
                    {t("video.dislike")}
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

/** The watch layout of each device variant. */
export default {
  desktop: ({ videoId }: WatchLayoutProps) => <Watch device="desktop" videoId={videoId} />,
  tablet: ({ videoId }: WatchLayoutProps) => <Watch device="tablet" videoId={videoId} />,
  mobile: ({ videoId }: WatchLayoutProps) => <Watch device="mobile" videoId={videoId} />,
} satisfies Record<Device, unknown>;
