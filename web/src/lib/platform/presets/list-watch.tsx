/** The watch page of the "list" style family (`list-parts.tsx`), for the three device variants. */
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
import { BASE_CSS, DEVICE_CSS, type Device, Row, Skeletons } from "./list-parts.tsx";
import { Avatar, RelatedList, ThumbDown, ThumbUp, useMoreOnScroll } from "./shared.tsx";

/** The family's stylesheet without the feed page's rules. */
const WATCH_CSS = `${BASE_CSS}.fl-stage{background:#0d0f13;display:flex;justify-content:center}
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
.fl-actions{display:flex;gap:.5rem;margin-inline-start:auto}
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
.fl--tablet .fl-watch{grid-template-columns:minmax(0,1fr);max-width:900px}
.fl--tablet .fl-upnext .fl-thumb{flex-basis:12rem}
.fl--mobile .fl-player{width:100%}
.fl--mobile .fl-watch{grid-template-columns:minmax(0,1fr);padding:.75rem .75rem 2rem;gap:1rem}
.fl--mobile .fl-panel{border:0;border-radius:0;padding:0;background:transparent}
.fl--mobile .fl-watch-title{font-size:1.05rem}
.fl--mobile .fl-actions{margin-inline-start:0;width:100%}
${DEVICE_CSS}`;

function Details({ video }: { video: Video }) {
  const likes = useLikes(video);
  const tags = video.tags ?? [];
  const date = formatDate(video.published_at);
  const comments = video.comments ?? [];
  return (
    <div className="fl-main">
      <section className="fl-panel" aria-label={t("video.details")}>
        <h1 className="fl-watch-title">
          <bdi>{video.title}</bdi>
        </h1>
        <div className="fl-byline">
          <Avatar name={video.channel_name} />
          <span className="fl-owner">{video.channel_name ?? t("video.unknownChannel")}</span>
          <div className="fl-actions">
            <button type="button" className="fl-btn" aria-pressed={likes.liked} onClick={likes.like}>
              <ThumbUp />
              {t("video.like")}
            </button>
            <button type="button" className="fl-btn" aria-pressed={likes.disliked} onClick={likes.dislike}>
              <ThumbDown />
              {t("video.dislike")}
            </button>
          </div>
        </div>
        <p className="fl-stats">
          {[formatViews(video.view_count), date, video.category].filter(Boolean).join(" · ")}
        </p>
        {video.description ? <p className="fl-desc">{video.description}</p> : null}
        {tags.length > 0 ? (
          <ul className="fl-tags" aria-label={t("video.tags")}>
            {tags.map((tag) => (
              <li key={tag}>{tag}</li>
            ))}
          </ul>
        ) : null}
      </section>
      <section className="fl-panel fl-comments" aria-labelledby="fl-comments-heading">
        <h2 id="fl-comments-heading">{t("video.comments", { count: comments.length })}</h2>
        {comments.length === 0 ? (
          <p className="fl-muted">{t("video.noComments")}</p>
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
      <style>{WATCH_CSS}</style>
      {/* One main landmark holds the whole page, the player's stage included. */}
      <main>
        <div className="fl-stage">
          {video ? (
            <VideoSurface video={video} context="watch" className="fl-player" />
          ) : (
            <div className="fl-player" />
          )}
        </div>
        <div className="fl-watch">
          {error ? (
            <p className="fl-empty" role="alert">
              {t("video.unavailable")}
            </p>
          ) : video ? (
            <Details video={video} />
          ) : (
            <div />
          )}
          <section aria-labelledby="fl-upnext-heading">
            <h2 id="fl-upnext-heading" className="fl-aside-title">
              {t("video.upNext")}
            </h2>
            <RelatedList
              related={related}
              family="fl"
              className="fl-upnext"
              skeletons={<Skeletons count={3} />}
              card={(v, i) => <Row video={v} position={i} context="related" />}
            />
            <div ref={more} />
          </section>
        </div>
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
