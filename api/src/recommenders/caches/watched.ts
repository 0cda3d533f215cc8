import { watchedVideoIds } from "@feedlab/projector";
import { type LoggedEvent, WATCHED_TYPES } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { ChangeBus } from "../../changes/change-bus.ts";
import type { Pool } from "../pool.ts";
import { indicesOf } from "./keys.ts";

/** How many participants' watched history is kept (and how many changes remembered) at most. */
const WATCHED_KEPT = 100_000;

/**
 * Participants' watched history (`watched_videos`): read on every request, or kept in memory once
 * `followWatched` tells this process of every change to it. A `resync` or an erasure
 * (`participants_erased`) drops it.
 */
export function createWatchedCache(options: { readonly db: Db; readonly bus: ChangeBus }) {
  const { db, bus } = options;
  /**
   * Watched history per participant (external ids), kept only while `followWatched` tells this
   * process of every change to it; `changedAt` is bumped by each change so that a read in flight
   * across one is answered but not kept.
   */
  const cache = new Map<string, readonly string[]>();
  const changedAt = new Map<string, number>();
  let changes = 0;
  /** Bumped whenever changedAt loses entries: reads begun before are not kept. */
  let clears = 0;
  let followed = false;
  const clear = () => {
    cache.clear();
    changedAt.clear();
    clears++;
  };
  const forget = (userId: string) => {
    cache.delete(userId);
    if (changedAt.size >= WATCHED_KEPT) clear();
    changedAt.set(userId, ++changes);
  };

  bus.subscribe((change) => {
    if (change.type === "resync" || change.type === "participants_erased") clear();
  });

  return {
    /**
     * Pool indices of the participant's watched videos (VIDEO_WATCHED_1S or VIDEO_ENDED), newest
     * first: read from the read model on every request, or, once `followWatched` is on, from memory
     * that the projector's batches update.
     */
    async watched(userId: string, pool: Pool): Promise<number[]> {
      if (!followed) return indicesOf(pool, await watchedVideoIds(db, userId));
      const cached = cache.get(userId);
      if (cached) return indicesOf(pool, cached);
      const changed = changedAt.get(userId);
      const clearsBefore = clears;
      const ids = await watchedVideoIds(db, userId);
      // Kept only if nothing changed it meanwhile (else the next request reads again).
      if (changedAt.get(userId) === changed && clears === clearsBefore) {
        if (cache.size >= WATCHED_KEPT) cache.clear();
        cache.set(userId, ids);
      }
      return indicesOf(pool, ids);
    },

    /**
     * Keeps participants' watched history in memory, told of every change by `source`: the projector
     * of this process, when it is the only writer of the read model (the embedded database, one
     * process). It calls back after each committed batch and before read-after waiters are released,
     * so a request that waited for its events sees them. A database read that a change crossed is
     * answered but not kept.
     */
    followWatched(source: { onApplied(listener: (events: readonly LoggedEvent[]) => void): () => void }) {
      followed = true;
      return source.onApplied((events) => {
        for (const e of events) if (WATCHED_TYPES.has(e.event_type)) forget(e.user_id);
      });
    },
  };
}
