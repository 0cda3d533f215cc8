import { rowsOf, type Sql } from "@feedlab/sql";

/**
 * Each video's most co-viewed partners with their counts, at most `limit` from each side of the pair
 * (video_a < video_b; so up to twice `limit` in all), most co-viewed first, ties by id: top-N through
 * the indexes on each side, one round trip for all the videos. Videos without co-views answer an
 * empty list.
 */
export async function topCoViewed(
  sql: Sql,
  experimentId: string,
  videoIds: readonly string[],
  limit: number,
): Promise<Map<string, [string, number][]>> {
  const out = new Map<string, [string, number][]>();
  if (videoIds.length === 0) return out;
  const result = await sql.raw(
    `select v.vid, (select coalesce(json_agg(json_build_array(x.other, x.count)), '[]') from (
       (select video_b as other, count from co_views where experiment_id = ? and video_a = v.vid
        order by count desc limit ?)
       union all
       (select video_a as other, count from co_views where experiment_id = ? and video_b = v.vid
        order by count desc limit ?)) x)::text as value
     from json_array_elements_text(?::json) as v(vid)`,
    [experimentId, limit, experimentId, limit, JSON.stringify(videoIds)],
  );
  for (const r of rowsOf<{ vid: string; value: string | null }>(result)) {
    const partners = (JSON.parse(r.value ?? "[]") as [string, number | string][])
      .map(([other, count]): [string, number] => [other, Number(count)])
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    out.set(r.vid, partners);
  }
  return out;
}
