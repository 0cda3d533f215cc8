/**
 * The UI key `none`. On the feed it never renders: the feed page redirects to the first recommended
 * video before any layout loads. On the watch page it is the bare player: no related list, metadata
 * or comments, only the video and the way back.
 */
import { type FeedLayoutProps, t, useVideo, type WatchLayoutProps } from "@feedlab/data";
import { FeedSurface, VideoSurface, WatchSurface } from "@feedlab/surfaces";

const CSS = `
.fn{min-height:calc(100vh - 3.5rem);background:#0d0f13;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1rem}
.fn-player{width:min(100%,calc((100vh - 6rem)*16/9));aspect-ratio:16/9;background:#000}
.fn-player video,.fn-player iframe,.fn-player>div,.fn-player>div>div{display:block;width:100%;height:100%;border:0}
.fn-title{color:#e9ebef;font-size:1rem;font-weight:600;margin:.75rem 0 0;text-align:center}
`;

function Watch({ videoId }: WatchLayoutProps) {
  const { video } = useVideo(videoId);
  return (
    <WatchSurface video={video} className="fn">
      <style>{CSS}</style>
      <main style={{ display: "contents" }}>
        {video ? (
          <VideoSurface video={video} context="watch" className="fn-player" />
        ) : (
          <div className="fn-player" />
        )}
        <h1 className="fn-title">{video?.title ?? ""}</h1>
      </main>
    </WatchSurface>
  );
}

/** Only reached when the feed has no video to open: the feed surface with a notice. */
function Feed(_props: FeedLayoutProps) {
  return (
    <FeedSurface className="fn">
      <style>{CSS}</style>
      <main>
        <h1 className="fn-title">{t("feed.empty")}</h1>
      </main>
    </FeedSurface>
  );
}

export default { feed: Feed, watch: Watch };
