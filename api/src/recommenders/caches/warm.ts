import type { Pool } from "../pool.ts";
import { keyOf } from "./keys.ts";

/** Videos whose co-views or learned neighbours one round trip of a warm-up reads. */
const WARM_BATCH = 100;

/**
 * Loads a per-video cache for every video of a pool, WARM_BATCH videos a round trip, one after the
 * other (requests' own reads queue between them), once per pool and cache generation: `reset` starts
 * a new generation when the cache is cleared.
 */
export function createPoolWarmer(load: (keys: string[]) => Promise<unknown>) {
  const warmed = new WeakMap<Pool, number>();
  let generation = 0;
  return {
    reset(): void {
      generation++;
    },
    warm(pool: Pool): Promise<void> {
      if (warmed.get(pool) === generation) return Promise.resolve();
      warmed.set(pool, generation);
      return (async () => {
        for (let from = 0; from < pool.size; from += WARM_BATCH) {
          const keys = pool.videos
            .slice(from, from + WARM_BATCH)
            .map((v) => keyOf(pool.experimentId, v.external_id));
          await load(keys);
        }
      })().catch((err) => {
        // Not warmed: requests load what they need; a later request tries again.
        warmed.delete(pool);
        throw err;
      });
    },
  };
}
