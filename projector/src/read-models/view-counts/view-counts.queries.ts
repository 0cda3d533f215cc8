import { rowsOf, type Sql } from "@feedlab/ingest";

/**
 * Play counts of an experiment's videos (external id, plays). One JSON text instead of a row per
 * video: an experiment has thousands of counts, and rows cost far more to move than text (PGlite's
 * worker, the pg wire protocol).
 */
export async function playCounts(sql: Sql, experimentId: string): Promise<[string, number][]> {
  const result = await sql.raw(
    "select coalesce(json_agg(json_build_array(video_id, plays)), '[]')::text as counts from video_view_counts where experiment_id = ?",
    [experimentId],
  );
  const counts = JSON.parse(rowsOf<{ counts: string }>(result)[0]?.counts ?? "[]") as [
    string,
    number | string,
  ][];
  return counts.map(([videoId, plays]) => [videoId, Number(plays)]);
}
