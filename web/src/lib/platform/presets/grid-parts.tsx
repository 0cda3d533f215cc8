/**
 * Pieces of the "grid" style family: a neutral video-site look with a grid of cards on the feed and a player
 * with a related column on the watch page. The feed page (`grid-feed.tsx`) and the watch page
 * (`grid-watch.tsx`) are separate chunks, so a participant downloads only the page they open; like every
 * layout they import only the platform namespace and `react`.
 */
import type { Video } from "@feedlab/data";
import { CardTitle, ViewsAndAge } from "./shared.tsx";

export type Device = "desktop" | "tablet" | "mobile";

/**
 * The rules both pages of the family use, first in each page's stylesheet. Each page appends its own
 * rules in the order the family's one stylesheet had them, then DEVICE_CSS, so the cascade is the same
 * on every page.
 */
export const BASE_CSS = `
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
.fg-duration{position:absolute;inset-inline-end:.4rem;bottom:.4rem;padding:.1rem .3rem;border-radius:4px;background:rgb(0 0 0/.8);color:#fff;font-size:.75rem;font-weight:600;line-height:1.3;font-variant-numeric:tabular-nums}
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
`;

/**
 * The device variants' rules for what both pages render (rows, titles, buttons), last in each page's
 * stylesheet, after the page's own rules: where both set the same property of an element, these win.
 */
export const DEVICE_CSS = `
.fg--tablet .fg-btn{height:2.75rem;padding:0 1.2rem}
.fg--mobile .fg-title{font-size:.95rem}
.fg--mobile .fg-sub{font-size:.8rem}
.fg--mobile .fg-btn{height:2.5rem}
`;

/**
 * A card's text: its title (a heading of `level`), channel, views and age. The feed's cards and the
 * related videos beside a watched one show the same.
 */
export function CardText({ video, level }: { video: Video; level: 2 | 3 }) {
  return (
    <span className="fg-text">
      <CardTitle video={video} family="fg" level={level} />
      {video.channel_name ? (
        <span className="fg-sub">
          <bdi>{video.channel_name}</bdi>
        </span>
      ) : null}
      <ViewsAndAge video={video} className="fg-sub" block />
    </span>
  );
}

export function Skeletons({ count, compact }: { count: number; compact?: boolean }) {
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
