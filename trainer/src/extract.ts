import type { Knex } from "knex";
import type { Interactions } from "./data.ts";
import { type Csr, csrFromTriplets } from "./sparse.ts";

/** Rows of a `db.raw` result (pg and PGlite both answer `{ rows }`). */
export function rowsOf<T>(result: unknown): T[] {
  const rows = (result as { rows?: T[] }).rows;
  return Array.isArray(rows) ? rows : [];
}

/** Interaction rows read per query (keyset pages). */
const PAGE = 20_000;
/** Videos whose co-view partners are read per query. */
const CO_VIEW_BATCH = 500;
/** Co-viewed partners read per video (the most co-viewed; the similarity built-in reads as many). */
export const CO_VIEW_PARTNERS = 100;

/**
 * The freshness of an experiment's training data now, and against the last succeeded run: the newest
 * `interactions.last_received_at` (as text, to keep its microseconds through the round trip) and the
 * sum of `interactions.events`, over participants who still exist.
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
  const result = await db.raw(
    `with cur as (
       select max(i.last_received_at) as watermark, coalesce(sum(i.events), 0)::bigint as events, count(*)::int as n
       from interactions i join users u on u.id = i.user_id where i.experiment_id = ?),
     last as (
       select watermark, source_events from model_runs
       where experiment_id = ? and status = 'succeeded' order by finished_at desc, created_at desc limit 1)
     select cur.watermark::text as watermark, cur.events::text as events, cur.n,
            last.watermark::text as last_watermark,
            (last.source_events is null or cur.events <> last.source_events
             or cur.watermark is distinct from last.watermark) as fresh
     from cur left join last on true`,
    [experimentId, experimentId],
  );
  const row = rowsOf<{
    watermark: string | null;
    events: string;
    n: number;
    last_watermark: string | null;
    fresh: boolean;
  }>(result)[0];
  return {
    interactions: Number(row?.n ?? 0),
    events: Number(row?.events ?? 0),
    watermark: row?.watermark ?? null,
    lastWatermark: row?.last_watermark ?? null,
    fresh: row?.fresh ?? true,
  };
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
 * Reads an experiment's training data: every `interactions` row of a participant who still exists
 * (weights already per the spec: VIDEO_WATCHED_1S 1.0, LIKE 3.0, VIDEO_ENDED above half 2.0), the
 * pool, and the pool videos' most co-viewed partners. Rows are read in keyset pages as JSON text
 * (cheaper than rows through PGlite's worker and the pg protocol), so memory stays at the arrays.
 */
export async function extractTrainingData(db: Knex, experimentId: string): Promise<TrainingSource> {
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
  const rows: [string, string, number, number][] = [];
  let after: [string, string] = ["00000000-0000-0000-0000-000000000000", ""];
  for (;;) {
    const page = rowsOf<{ rows: string }>(
      await db.raw(
        `select coalesce(json_agg(json_build_array(x.user_id, x.video_id, x.weight, x.at) order by x.user_id, x.video_id), '[]')::text as rows
         from (select i.user_id, i.video_id, i.weight, (extract(epoch from i.last_at) * 1000)::float8 as at
               from interactions i join users u on u.id = i.user_id
               where i.experiment_id = ? and (i.user_id, i.video_id) > (?::uuid, ?)
               order by i.user_id, i.video_id limit ?) x`,
        [experimentId, after[0], after[1], PAGE],
      ),
    );
    const batch = JSON.parse(page[0]?.rows ?? "[]") as [string, string, number | string, number | string][];
    for (const [u, v, w, t] of batch) rows.push([u, v, Number(w), Number(t)]);
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
    const ids = coViewed.slice(start, start + CO_VIEW_BATCH);
    const result = await db.raw(
      `select v.vid, (select coalesce(json_agg(json_build_array(x.other, x.count)), '[]') from (
         (select video_b as other, count from co_views where experiment_id = ? and video_a = v.vid order by count desc limit ?)
         union all
         (select video_a as other, count from co_views where experiment_id = ? and video_b = v.vid order by count desc limit ?)) x)::text as value
       from json_array_elements_text(?::json) as v(vid)`,
      [experimentId, CO_VIEW_PARTNERS, experimentId, CO_VIEW_PARTNERS, JSON.stringify(ids)],
    );
    for (const r of rowsOf<{ vid: string; value: string | null }>(result)) {
      const i = videoIndex.get(r.vid);
      if (i === undefined) continue;
      const partners = (JSON.parse(r.value ?? "[]") as [string, number | string][])
        .map(([other, count]) => [videoIndex.get(other), Number(count)] as const)
        .filter((p): p is readonly [number, number] => p[0] !== undefined && p[1] > 0)
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, CO_VIEW_PARTNERS);
      for (const [j, count] of partners) {
        a.push(i);
        b.push(j);
        c.push(count);
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
