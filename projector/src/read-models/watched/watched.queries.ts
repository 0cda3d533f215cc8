import { rowsOf, type Sql } from "@feedlab/sql";

/** A participant's watched videos (external ids), newest first: one JSON text, one round trip. */
export async function watchedVideoIds(sql: Sql, userId: string): Promise<string[]> {
  const result = await sql.raw(
    `select coalesce(json_agg(video_id order by first_watched_at desc), '[]')::text as ids
     from watched_videos where user_id = ?`,
    [userId],
  );
  return JSON.parse(rowsOf<{ ids: string }>(result)[0]?.ids ?? "[]") as string[];
}
