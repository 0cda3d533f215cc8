import type { ComponentType } from "preact";
import type { Video } from "../../../types.ts";
import type { PlayerProps } from "./native.tsx";
import type { YouTubePlayerProps } from "./youtube.tsx";

/**
 * A player component: the native one or a provider adapter. Every video type has one, so every video
 * records playback events.
 */
export type Player = ComponentType<PlayerProps & Partial<YouTubePlayerProps>>;

const loading = new Map<string, Promise<Player>>();

/**
 * The player for a video, loaded on demand: the feed page never downloads a player, and the watch
 * page's loader starts the download while it fetches the video (`preloadPlayer`).
 */
export function loadPlayer(type: Video["type"]): Promise<Player> {
  const key = type === "youtube" || type === "vimeo" ? type : "native";
  let player = loading.get(key);
  if (!player) {
    player =
      key === "youtube"
        ? import("./youtube.tsx").then((m) => m.YouTubePlayer as Player)
        : key === "vimeo"
          ? import("./vimeo.tsx").then((m) => m.VimeoPlayer as Player)
          : import("./native.tsx").then((m) => m.NativePlayer as Player);
    player.catch(() => loading.delete(key));
    loading.set(key, player);
  }
  return player;
}

/** Starts loading the player a video needs (the watch page's loader calls it). */
export function preloadPlayer(video: Pick<Video, "type">): void {
  loadPlayer(video.type).catch(() => undefined);
}
