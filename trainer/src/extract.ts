import { type InteractionRow, interactionPage, interactionTotals, topCoViewed } from "@feedlab/projector";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import type { Interactions } from "./data.ts";
import { type Csr, csrFromTriplets } from "./sparse.ts";

/** Interaction rows read per query (keyset pages). */
const PAGE = 20_000;
/** Videos whose co-view partners are read per query. */
const CO_VIEW_BATCH = 500;
/** Co-viewed partners read per video (the most co-viewed; the similarity built-in reads as many). */
const CO_VIEW_PARTNERS = 100;

/**
 * The freshness of an experiment's training data now, and against the last succeeded run: the newest
 * `interactions.last_received_at` (as text, to keep its microseconds through the round trip) and the
 * sum of `interactions.events`, over real participants who still exist (a simulated participant's
 * interactions never make a run due).
 */
export interface Freshness {
  readonly interactions: number;
  readonly events: number;
  readonly watermark: string | null;
  readonly lastWatermark: string | null;
  /** True when nothing succeeded yet, or the watermark or the event sum changed since. */
  readonly fresh: boolean;
}

/**
 * Spec, "Backend consumers of events": the freshness check reads VIDEO_WATCHED_1S, LIKE and
 * VIDEO_ENDED. The interactions projection holds exactly those that carry a training weight, so a
 * change there is a change of the training data; an event without weight (VIDEO_ENDED at half the
 * video or less) would train the same model again.
 */
export async function readFreshness(db: Knex, experimentId: string): Promise<Freshness> {
  const [current, last] = await Promise.all([
    interactionTotals(db, experimentId),
    lastSucceeded(db, experimentId),
  ]);
  return {
    ...current,
    lastWatermark: last?.watermark ?? null,
    fresh:
      !last ||
      last.source_events === null ||
      current.events !== Number(last.source_events) ||
      current.watermark !== last.watermark,
  };
}

/** The freshness of the data the experiment's last succeeded run trained on, if any. */
async function lastSucceeded(
  db: Knex,
  experimentId: string,
): Promise<{ watermark: string | null; source_events: string | null } | undefined> {
  const result = await db.raw(
    `select watermark::text as watermark, source_events::text as source_events from model_runs
     where experiment_id = ? and status = 'succeeded' order by finished_at desc, created_at desc limit 1`,
    [experimentId],
  );
  return rowsOf<{ watermark: string | null; source_events: string | null }>(result)[0];
}

/** What a run trains on: the experiment's interactions with the index of every participant and video. */
export interface TrainingSource {
  /** Participant UUIDs by row (sorted, so indices do not depend on the database's order). */
  readonly userIds: readonly string[];
  /** Video external ids by column (sorted): the pool's videos and any other video interacted with. */
  readonly videoIds: readonly string[];
  readonly interactions: Interactions;
  /** 1 = the video is in the experiment's pool (only these are recommended). */
  readonly pool: Uint8Array;
  /** Co-view counts between videos (each video's most co-viewed partners, by column). */
  readonly coViews: Csr;
}

/**
 * Reads an experiment's training data: every `interactions` row of a real participant who still
 * exists (weights already per the spec: VIDEO_WATCHED_1S 1.0, LIKE 3.0, VIDEO_ENDED above half 2.0),
 * the pool, and the pool videos' most co-viewed partners. Rows are read in keyset pages as JSON text
 * (cheaper than rows through PGlite's worker and the pg protocol), so memory stays at the arrays.
 *
 * Simulated participants (api.md, "Simulated participants") are left out: their interactions are not
 * read and their events made no co-views, so they never move a real participant's recommendations or
 * the item similarity. With `simulated`, it reads theirs alone instead (still with the real co-views):
 * the data of the model that serves only them (simulated.ts).
 */
export async function extractTrainingData(
  db: Knex,
  experimentId: string,
  options: { readonly simulated?: boolean } = {},
): Promise<TrainingSource> {
  // 1. The pool (external ids).
  const poolRows = rowsOf<{ ids: string }>(
    await db.raw(
      `select coalesce(json_agg(v.external_id), '[]')::text as ids from experiment_videos p
       join videos v on v.id = p.video_id where p.experiment_id = ?`,
      [experimentId],
    ),
  );
  const poolIds = new Set(JSON.parse(poolRows[0]?.ids ?? "[]") as string[]);

  // 2. Interactions, page by page in key order.
  const rows: InteractionRow[] = [];
  for (let after: readonly [string, string] | null = null; ; ) {
    const batch = await interactionPage(db, experimentId, after, PAGE, options.simulated === true);
    rows.push(...batch);
    const last = batch[batch.length - 1];
    if (!last || batch.length < PAGE) break;
    after = [last[0], last[1]];
  }

  // 3. Indices: participants and videos sorted.
  const userIds = [...new Set(rows.map((r) => r[0]))].sort();
  const videoIds = [...new Set([...poolIds, ...rows.map((r) => r[1])])].sort();
  const userIndex = new Map(userIds.map((id, i) => [id, i]));
  const videoIndex = new Map(videoIds.map((id, i) => [id, i]));
  const n = rows.length;
  const interactions: Interactions = {
    users: userIds.length,
    items: videoIds.length,
    user: Int32Array.from(rows, (r) => userIndex.get(r[0]) as number),
    item: Int32Array.from(rows, (r) => videoIndex.get(r[1]) as number),
    weight: Float32Array.from(rows, (r) => r[2]),
    time: Float64Array.from(rows, (r) => r[3]),
  };
  rows.length = 0;
  const pool = Uint8Array.from(videoIds, (id) => (poolIds.has(id) ? 1 : 0));

  // 4. Co-views of the pool's videos that were interacted with (co-views come from watches).
  const watched = new Uint8Array(videoIds.length);
  for (let q = 0; q < n; q++) watched[interactions.item[q] as number] = 1;
  const coViewed = videoIds.filter((_id, i) => pool[i] === 1 && watched[i] === 1);
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  for (let start = 0; start < coViewed.length; start += CO_VIEW_BATCH) {
    const partnersOf = await topCoViewed(
      db,
      experimentId,
      coViewed.slice(start, start + CO_VIEW_BATCH),
      CO_VIEW_PARTNERS,
    );
    for (const [vid, partners] of partnersOf) {
      const i = videoIndex.get(vid);
      if (i === undefined) continue;
      // Partners come most co-viewed first, ties by external id: the order of the indices too.
      let kept = 0;
      for (const [other, count] of partners) {
        const j = videoIndex.get(other);
        if (j === undefined || count <= 0) continue;
        a.push(i);
        b.push(j);
        c.push(count);
        if (++kept === CO_VIEW_PARTNERS) break;
      }
    }
  }
  const coViews = csrFromTriplets(
    videoIds.length,
    videoIds.length,
    Int32Array.from(a),
    Int32Array.from(b),
    Float32Array.from(c),
  );
  return { userIds, videoIds, interactions, pool, coViews };
}
