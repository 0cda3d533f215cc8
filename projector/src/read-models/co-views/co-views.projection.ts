import { keyOf, type RowOp } from "../../ops.ts";
import type { Projection } from "../../read-model.ts";
import { eraseCoViews } from "./co-views.erase.ts";
import { coViewsMigrations } from "./co-views.migration.ts";

/** A participant's first event with a video in an experiment. */
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
 * Co-views (spec: the readers of "any event whose video_id is not null"): each participant's videos
 * are recorded with their first event (`co_view_videos`); settled after the batch's rows are written,
 * each video this batch recorded for the first time pairs with the participant's videos from before
 * the batch and with the batch's earlier first ones. A pair counts once per participant. A simulated
 * participant's events record no videos and so make no pairs (api.md, "Simulated participants"):
 * co-views feed the related lists real participants see and the trainer's item similarity.
 */
export const coViewsProjection: Projection = {
  name: "co_views",
  // Any type may carry a video_id (the wire leaves it optional for all), and every one with it counts.
  canHandle: "all",
  tables: ["co_views", "co_view_videos"],
  migrations: coViewsMigrations,
  erase: eraseCoViews,
  project: (e) =>
    e.video_id === null || e.simulated === true
      ? []
      : [
          {
            kind: "insert",
            table: "co_view_videos",
            key: ["user_id", "video_id"],
            row: { experiment_id: e.experiment_id, user_id: e.user_id, video_id: e.video_id },
          },
        ],
  async settle({ sql, events, inserted }) {
    const created = inserted.get("co_view_videos") ?? new Set<string>();
    const seen = new Set<string>();
    const first: FirstWatch[] = [];
    for (const e of events) {
      if (e.video_id === null || e.simulated === true) continue;
      const key = keyOf([e.user_id, e.video_id]);
      if (!created.has(key) || seen.has(key)) continue;
      seen.add(key);
      first.push({ experiment_id: e.experiment_id, user_id: e.user_id, video_id: e.video_id });
    }
    if (first.length === 0) return [];
    const earlier = new Map<string, string[]>();
    const users = [...new Set(first.map((w) => w.user_id))];
    const rows = (await sql("co_view_videos").whereIn("user_id", users).select("user_id", "video_id")) as {
      user_id: string;
      video_id: string;
    }[];
    for (const w of rows) {
      if (seen.has(keyOf([w.user_id, w.video_id]))) continue;
      earlier.set(w.user_id, [...(earlier.get(w.user_id) ?? []), w.video_id]);
    }
    return pairFirstWatches(first, earlier);
  },
};
