import type { Db } from "@feedlab/sql";
import type { ChangeBus } from "../../changes/change-bus.ts";
import type { Pool } from "../pool.ts";

/** What a read model's cache is built with (`createCaches` gives each the same, but for `refreshMs`). */
export interface ReadModelCacheOptions {
  readonly db: Db;
  /** Its changes (`resync`; `model` for the trainer's output) drop what the cache holds. */
  readonly bus: ChangeBus;
  /** Age after which an entry is re-read in the background while the old one keeps serving. */
  readonly refreshMs: number;
  readonly now: () => number;
}

/** A cache key: an experiment and a video's external id (or a participant), `experiment\0id`. */
export const keyOf = (experimentId: string, id: string) => `${experimentId}\u0000${id}`;
export const split = (key: string) => key.split("\u0000") as [string, string];

/** Keys `experiment\0id` grouped by experiment (one query per experiment and batch). */
function byExperiment(keys: readonly string[]) {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const [experimentId, id] = split(key);
    groups.set(experimentId, [...(groups.get(experimentId) ?? []), id]);
  }
  return groups;
}

/** Per experiment of a batch of keys, one query for its videos: `read` answers by video id. */
export async function perVideo<V>(
  keys: readonly string[],
  read: (experimentId: string, ids: readonly string[]) => Promise<ReadonlyMap<string, V>>,
): Promise<Map<string, V>> {
  const out = new Map<string, V>();
  for (const [experimentId, ids] of byExperiment(keys)) {
    for (const [id, value] of await read(experimentId, ids)) out.set(keyOf(experimentId, id), value);
  }
  return out;
}

/** External ids to pool indices, in order, dropping ids outside the pool. */
export function indicesOf(pool: Pool, ids: readonly string[]): number[] {
  const out: number[] = [];
  for (const id of ids) {
    const i = pool.indexByExternalId.get(id);
    if (i !== undefined) out.push(i);
  }
  return out;
}

/**
 * How long a video's stale neighbours (answered meanwhile) wait for others to be read with them: a
 * watch page's video refreshes once a minute, and at hundreds of pages a second one round trip per
 * turn of the event loop would mean one per page.
 */
export const REFRESH_BATCH_MS = 100;
