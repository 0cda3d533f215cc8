import { rowsOf, type Sql } from "@feedlab/sql";

/** The learned collaborative-filtering ranking of a participant (external ids), best first. */
export async function learnedRanking(sql: Sql, experimentId: string, userId: string): Promise<string[]> {
  const result = await sql.raw(
    `select coalesce(json_agg(video_id order by rank), '[]')::text as ids from recommendation_cache
     where experiment_id = ? and user_id = ?`,
    [experimentId, userId],
  );
  return JSON.parse(rowsOf<{ ids: string }>(result)[0]?.ids ?? "[]") as string[];
}

/**
 * The learned item-to-item neighbours (external ids) of each video, best first, at most `limit`
 * each: one round trip for all the videos. Videos without neighbours answer an empty list.
 */
export async function learnedNeighbours(
  sql: Sql,
  experimentId: string,
  videoIds: readonly string[],
  limit: number,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (videoIds.length === 0) return out;
  const result = await sql.raw(
    `select v.vid, (select coalesce(json_agg(s.other_video_id order by s.score desc, s.other_video_id), '[]') from (
       select other_video_id, score from item_similarity where experiment_id = ? and video_id = v.vid
       order by score desc, other_video_id limit ?) s)::text as value
     from json_array_elements_text(?::json) as v(vid)`,
    [experimentId, limit, JSON.stringify(videoIds)],
  );
  for (const r of rowsOf<{ vid: string; value: string | null }>(result)) {
    out.set(r.vid, JSON.parse(r.value ?? "[]") as string[]);
  }
  return out;
}

/** Those of `userIds` the experiment's learned model has a ranking for. */
export async function rankedUsers(
  sql: Sql,
  experimentId: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = (await sql("recommendation_cache")
    .where("experiment_id", experimentId)
    .whereIn("user_id", userIds)
    .distinct("user_id")) as { user_id: string }[];
  return new Set(rows.map((r) => r.user_id));
}
