/**
 * `@feedlab/surfaces`: the surface primitives every participant layout renders through
 * (docs/participant-runtime.md). They own all event emission; a layout decides only how things look.
 */
export { FeedSurface, type FeedSurfaceProps, WatchSurface, type WatchSurfaceProps } from "./page-surface.tsx";
export { preloadPlayer } from "./players/index.ts";
export type { PlayerProps } from "./players/native.tsx";
export type { YouTubePlayerProps } from "./players/youtube.tsx";
export {
  MIN_HOVER_MS,
  type VideoCardProps,
  type VideoContext,
  type VideoPlayerProps,
  VideoSurface,
  type VideoSurfaceProps,
} from "./video-surface.tsx";
