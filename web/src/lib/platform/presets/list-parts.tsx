/**
 * Pieces of the "list" style family: a calmer, reading-first look. The feed is a column of rows (thumbnail,
 * title, channel, a line of description), and the watch page puts the player on a dark stage with the
 * details and an "Up next" list below. The feed page (`list-feed.tsx`) and the watch page
 * (`list-watch.tsx`) are separate chunks, so a participant downloads only the page they open; like every
 * layout they import only the platform namespace and `react`.
 */
import type { Video } from "@feedlab/data";
import { VideoSurface } from "@feedlab/surfaces";
import { Avatar, CardTitle, VideoThumb, ViewsAndAge } from "./shared.tsx";

export type Device = "desktop" | "tablet" | "mobile";

/**
 * The rules both pages of the family use, first in each page's stylesheet. Each page appends its own
 * rules in the order the family's one stylesheet had them, then DEVICE_CSS, so the cascade is the same
 * on every page.
 */
export const BASE_CSS = `
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
.fl-duration{position:absolute;inset-inline-end:.35rem;bottom:.35rem;padding:.05rem .3rem;border-radius:3px;background:rgb(10 12 16/.82);color:#fff;font-size:.72rem;font-weight:600;font-variant-numeric:tabular-nums}
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
`;

/**
 * The device variants' rules for what both pages render (rows, titles, buttons), last in each page's
 * stylesheet, after the page's own rules: where both set the same property of an element, these win.
 */
export const DEVICE_CSS = `
@media (max-width:760px){.fl-thumb{flex-basis:42%}.fl-snippet{display:none}}
.fl--tablet .fl-thumb{flex-basis:15rem}
.fl--tablet .fl-snippet{-webkit-line-clamp:1;line-clamp:1}
.fl--tablet .fl-btn{height:2.75rem;padding:0 1.2rem}
.fl--mobile .fl-row{padding:.45rem 0;gap:.7rem;background:transparent;border:0;border-radius:0}
.fl--mobile .fl-row:hover{box-shadow:none}
.fl--mobile .fl-thumb{flex-basis:42%;border-radius:8px}
.fl--mobile .fl-title{font-size:.9rem}
.fl--mobile .fl-meta,.fl--mobile .fl-channel{font-size:.76rem;margin:0}
.fl--mobile .fl-channel .fx-avatar{display:none}
.fl--mobile .fl-snippet{display:none}
.fl--mobile .fl-btn{height:2.5rem;flex:1;justify-content:center}
`;

export function Skeletons({ count }: { count: number }) {
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

export function Row({
  video,
  position,
  context,
}: {
  video: Video;
  position: number;
  context: "feed" | "related";
}) {
  const snippet = context === "feed" ? video.description?.split("\n")[0] : null;
  return (
    <VideoSurface video={video} position={position} context={context} className="fl-row">
      <VideoThumb video={video} family="fl" eager={context === "feed" && position < 6} />
      <span className="fl-info">
        {/* A title heading sits under the page's h1 on the feed, under "Up next" (h2) beside a video. */}
        <CardTitle video={video} family="fl" level={context === "feed" ? 2 : 3} />
        <ViewsAndAge video={video} className="fl-meta" />
        {video.channel_name ? (
          <span className="fl-channel">
            <Avatar name={video.channel_name} />
            <bdi>{video.channel_name}</bdi>
          </span>
        ) : null}
        {snippet ? <span className="fl-snippet">{snippet}</span> : null}
      </span>
    </VideoSurface>
  );
}
