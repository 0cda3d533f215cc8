import { rowsOf, type Sql } from "@feedlab/sql";

/**
 * Play counts of an experiment's videos as the JSON text the database sends, `[[video_id, plays],
 * ...]` ordered by video (`parsePlayCounts` reads it). One text instead of a row per video: an
 * experiment has thousands of counts, and rows cost far more to move than text (PGlite's worker, the
 * pg wire protocol). Equal texts are equal counts, so a caller can tell nothing changed without
 * parsing it.
 */
export async function playCountsText(sql: Sql, experimentId: string): Promise<string> {
  const result = await sql.raw(
    "select coalesce(json_agg(json_build_array(video_id, plays) order by video_id), '[]')::text as counts from video_view_counts where experiment_id = ?",
    [experimentId],
  );
  return rowsOf<{ counts: string }>(result)[0]?.counts ?? "[]";
}

/** The pairs of a `playCountsText`. */
export function parsePlayCounts(text: string): [string, number][] {
  return (JSON.parse(text) as [string, number | string][]).map(([videoId, plays]) => [
    videoId,
    Number(plays),
  ]);
}
