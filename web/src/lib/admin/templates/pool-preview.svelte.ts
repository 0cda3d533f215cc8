import { api } from "#lib/api.ts";
import type { Video } from "#lib/types.ts";

/** An experiment's pool as the editors' previews show it: newest first, as the recency feed would. */
async function poolVideos(experimentId: string): Promise<Video[]> {
  const [pool, all] = await Promise.all([api.getPool(experimentId), api.listVideos()]);
  const inPool = new Set(pool.video_ids);
  return all
    .filter((v) => inPool.has(v.id))
    .sort((a, b) => (b.published_at ?? "").localeCompare(a.published_at ?? ""));
}

/**
 * The videos an editor's preview shows: the pool of the chosen experiment, reloaded when the choice
 * changes (a reply to an older choice is dropped). Create it while a component initialises.
 */
export class PoolPreview {
  experimentId = $state("");
  videos = $state<Video[]>([]);

  constructor(experimentId: string) {
    this.experimentId = experimentId;
    $effect(() => {
      const id = this.experimentId;
      if (!id) return;
      let stale = false;
      poolVideos(id)
        .then((list) => {
          if (!stale) this.videos = list;
        })
        .catch(() => {
          if (!stale) this.videos = [];
        });
      return () => {
        stale = true;
      };
    });
  }
}
