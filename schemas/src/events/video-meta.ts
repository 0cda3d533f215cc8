import type { Payloads } from "./payloads.ts";

// VIDEO_META_CAPTURED, part of the player contract (player.ts) in a module of its own: every page
// surface sends it, and the feed page then downloads this alone rather than the playback builders.

/** What a watch page knows of its video (the participant API's video). */
export interface MetaSource {
  readonly external_id: string;
  readonly title: string;
  readonly channel_name: string | null;
  readonly category: string | null;
  readonly view_count: number | null;
  readonly description: string | null;
  readonly tags?: readonly string[] | null;
  readonly duration_seconds: number | null;
  readonly thumbnail_url: string | null;
}

/** VIDEO_META_CAPTURED of the watch page's video. */
export const videoMeta = (video: MetaSource): Payloads["VIDEO_META_CAPTURED"] => ({
  videoId: video.external_id,
  title: video.title,
  channelName: video.channel_name,
  category: video.category,
  viewCount: video.view_count,
  description: video.description,
  tags: [...(video.tags ?? [])],
  duration: video.duration_seconds,
  thumbnailUrl: video.thumbnail_url,
});
