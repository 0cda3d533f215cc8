/** The player block: the watch page's video, recording playback (the catalog's Player). */
import type { BlockProps } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { VideoSurface } from "@feedlab/surfaces";
import { useShownVideo, withDefaults } from "./scope.tsx";

export type PlayerProps = BlockProps<"Player">;

export function Player(props: PlayerProps) {
  const p = withDefaults("Player", props);
  const { video } = useShownVideo();
  return video ? (
    <VideoSurface video={video} context="watch" className="fb-player" autoplay={p.autoplay} />
  ) : (
    <div className="fb-player" />
  );
}
