/** The blocks' stylesheet: one `<style>` in the Page block; every class is prefixed `fb-`. */
export const BLOCKS_CSS = `
.fb{--fb-text:#0f0f0f;--fb-muted:#606060;--fb-line:#e5e5e5;--fb-chip:#f2f2f2;--fb-accent:#065fd4;--fb-bg:#fff;
  background:var(--fb-bg);color:var(--fb-text);min-height:calc(100vh - 3.5rem);font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
.fb--dark{--fb-text:#f1f1f1;--fb-muted:#aaa;--fb-line:#3f3f3f;--fb-chip:#272727;--fb-accent:#3ea6ff;--fb-bg:#0f0f0f}
.fb *{box-sizing:border-box}
.fb h1,.fb h2,.fb h3,.fb p{margin:0}
.fb a{color:inherit;text-decoration:none}
.fb-page{margin:0 auto;display:flex;flex-direction:column;gap:16px}
.fb-sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.fb-stack{display:flex;min-width:0}
.fb-grid{display:grid}
.fb-split{display:grid;align-items:start}
.fb-split-main,.fb-split-side{min-width:0;display:flex;flex-direction:column;gap:16px}
@media (max-width:900px){.fb-split{grid-template-columns:minmax(0,1fr)!important}}
.fb-tablist{display:flex;gap:4px;border-bottom:1px solid var(--fb-line);margin-bottom:12px}
.fb-tab{border:0;background:none;color:var(--fb-muted);font:inherit;font-weight:600;padding:8px 14px;cursor:pointer;border-bottom:3px solid transparent}
.fb-tab[aria-selected="true"]{color:var(--fb-text);border-bottom-color:var(--fb-text)}
.fb-tab:focus-visible,.fb-btn:focus-visible,.fb-card:focus-visible{outline:2px solid var(--fb-accent);outline-offset:2px}
.fb-divider{border:0;border-top:1px solid var(--fb-line);width:100%}
.fb-heading{font-size:1.2rem;font-weight:700;line-height:1.35}
.fb-text{line-height:1.5}
.fb-note{background:#fff7d6;color:#3d3000;padding:.75rem 1rem;border-radius:8px;line-height:1.5}
.fb-list{list-style:none;margin:0;padding:0;display:grid;gap:24px 16px}
.fb-list--grid{grid-template-columns:repeat(auto-fill,minmax(min(100%,16rem),1fr))}
.fb-list--list{grid-template-columns:minmax(0,1fr);gap:10px}
.fb-card{display:flex;flex-direction:column;gap:6px;border-radius:12px}
.fb-list--list .fb-card{display:grid;grid-template-columns:minmax(7rem,10rem) minmax(0,1fr);column-gap:10px;align-content:start}
.fb-list--list .fb-card>:not(.fb-thumb){grid-column:2}
.fb-list--list .fb-card>.fb-thumb{grid-row:1/span 6}
.fb-thumb{position:relative;display:block;aspect-ratio:16/9;border-radius:10px;overflow:hidden;background:#e9e9e9}
.fb-thumb img{display:block;width:100%;height:100%;object-fit:cover}
.fb-duration{position:absolute;inset-inline-end:.4rem;bottom:.4rem;padding:.1rem .3rem;border-radius:4px;background:rgb(0 0 0/.8);color:#fff;font-size:.75rem;font-weight:600}
.fb-title{font-weight:600;line-height:1.4}
.fb-title--small{font-size:.875rem}
.fb-title--medium{font-size:1rem}
.fb-title--large{font-size:1.3rem;font-weight:700}
h2.fb-title,h3.fb-title{display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.fb-channel{display:inline-flex;align-items:center;gap:.5rem;font-size:.875rem;color:var(--fb-muted)}
.fb-sub{font-size:.875rem;color:var(--fb-muted)}
.fx-avatar{flex:none;display:grid;place-items:center;width:1.75rem;height:1.75rem;border-radius:50%;color:#fff;font-weight:700;font-size:.8rem}
.fb-tags{display:flex;flex-wrap:wrap;gap:0 .5rem;margin:0;padding:0;list-style:none;color:var(--fb-accent);font-size:.875rem}
.fb-desc{white-space:pre-line;font-size:.9rem;line-height:1.5}
.fb-desc-box{background:var(--fb-chip);border-radius:12px;padding:.75rem .9rem}
.fb-clamped{display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.fb-link{border:0;background:none;padding:0;margin-top:.35rem;font:inherit;font-weight:600;cursor:pointer;color:var(--fb-text)}
.fb-btn{display:inline-flex;align-items:center;gap:.4rem;height:2.25rem;padding:0 1rem;border:0;border-radius:999px;background:var(--fb-chip);color:var(--fb-text);font:inherit;font-size:.875rem;font-weight:600;cursor:pointer}
.fb-btn[aria-pressed="true"]{background:var(--fb-text);color:var(--fb-bg)}
.fb-btn svg{width:1.25rem;height:1.25rem;fill:currentColor}
.fb-likes{display:inline-flex;gap:.5rem}
.fb-actions{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem}
.fb-actions-end{margin-inline-start:auto;display:flex;gap:.5rem}
.fb-comments ul{list-style:none;margin:12px 0 0;padding:0;display:flex;flex-direction:column;gap:1rem}
.fb-comment{display:flex;gap:.75rem}
.fb-comment-author{font-size:.8rem;font-weight:600}
.fb-player{aspect-ratio:16/9;background:#000;border-radius:12px;overflow:hidden}
.fb-player video,.fb-player iframe,.fb-player>div,.fb-player>div>div{display:block;width:100%;height:100%;border:0;background:#000}
.fb-more{display:flex;justify-content:center;padding-top:16px}
.fb-empty{margin:10vh auto;max-width:28rem;text-align:center;color:var(--fb-muted)}
`;
