import { api } from "#lib/api.ts";
import type { Video } from "#lib/types.ts";

/** An experiment's pool as the editors' previews show it: newest first, as the recency feed would. */
export async function poolVideos(experimentId: string): Promise<Video[]> {
  const [pool, all] = await Promise.all([api.getPool(experimentId), api.listVideos()]);
  const inPool = new Set(pool.video_ids);
  return all
    .filter((v) => inPool.has(v.id))
    .sort((a, b) => (b.published_at ?? "").localeCompare(a.published_at ?? ""));
}
