import type { Video } from "../../types.ts";

/** File types the native player plays in current browsers. */
const MEDIA_FILE = /\.(mp4|m4v|webm|ogv|ogg|mov)$/i;

/**
 * Why participants could not play a video, or null when a player records its playback: YouTube and
 * Vimeo have adapters, and a native video needs a media file (or a file this server serves). Any
 * other page (another provider's, say) has no player, so it would record no playback events.
 */
export function missingPlayer(video: Pick<Video, "type" | "resolved_url">): string | null {
  if (video.type !== "native") return null;
  let path: string;
  try {
    path = new URL(video.resolved_url, "http://local.invalid").pathname;
  } catch {
    return "Its URL is not valid.";
  }
  if (path.startsWith("/media/") || MEDIA_FILE.test(path)) return null;
  return "No player for this URL: it is not a video file (MP4 or WebM), a YouTube or a Vimeo video. Participants could not play it, and no playback events would be recorded.";
}
