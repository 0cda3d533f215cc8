import { WATCHED_TYPES } from "@feedlab/schemas";
import { keyOf, type RowOp } from "../../ops.ts";
import type { Projection } from "../../read-model.ts";
import { watchedPairs } from "../watched/watched.queries.ts";
import { coViewsMigrations } from "./co-views.migration.ts";

/** A participant's first watch of a video in an experiment. */
export interface FirstWatch {
  readonly experiment_id: string;
  readonly user_id: string;
  readonly video_id: string;
}

/**
 * The co-view counts of first watches, in order: each pairs with every video its participant watched
 * before it (`earlier`, by participant, then the first watches before it in the list), so each pair
 * counts once per participant. Pairs are keyed with the smaller id first.
 */
export function pairFirstWatches(
  firstWatches: readonly FirstWatch[],
  earlier: ReadonlyMap<string, readonly string[]>,
): RowOp[] {
  const before = new Map<string, string[]>();
  const ops: RowOp[] = [];
  for (const w of firstWatches) {
    const prior = before.get(w.user_id) ?? [...(earlier.get(w.user_id) ?? [])];
    for (const other of prior) {
      if (other === w.video_id) continue;
      const [a, b] = other < w.video_id ? [other, w.video_id] : [w.video_id, other];
      ops.push({
        kind: "accumulate",
        table: "co_views",
        key: { experiment_id: w.experiment_id, video_a: a, video_b: b },
        add: { count: 1 },
      });
    }
    prior.push(w.video_id);
    before.set(w.user_id, prior);
  }
  return ops;
}

/**
 * Co-views, settled after the batch's watched rows are written: the watches whose watched row this
 * batch created are first watches; each pairs with the participant's earlier watches (the watched
 * rows from before the batch) and with first watches earlier in the batch.
 */
export const coViewsProjection: Projection = {
  name: "co_views",
  tables: ["co_views"],
  migrations: coViewsMigrations,
  requires: ["watched"],
  project: () => [],
  async settle({ sql, events, inserted }) {
    const created = inserted.get("watched_videos") ?? new Set<string>();
    const seen = new Set<string>();
    const first: FirstWatch[] = [];
    for (const e of events) {
      if (!WATCHED_TYPES.has(e.event_type) || e.video_id === null) continue;
      const key = keyOf([e.user_id, e.video_id]);
      if (!created.has(key) || seen.has(key)) continue;
      seen.add(key);
      first.push({ experiment_id: e.experiment_id, user_id: e.user_id, video_id: e.video_id });
    }
    if (first.length === 0) return [];
    const earlier = new Map<string, string[]>();
    for (const w of await watchedPairs(sql, [...new Set(first.map((w) => w.user_id))])) {
      if (seen.has(keyOf([w.user_id, w.video_id]))) continue;
      earlier.set(w.user_id, [...(earlier.get(w.user_id) ?? []), w.video_id]);
    }
    return pairFirstWatches(first, earlier);
  },
};
