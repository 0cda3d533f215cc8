import { rowsOf, type Sql } from "@feedlab/ingest";

/** A participant's watched videos (external ids), newest first: one JSON text, one round trip. */
export async function watchedVideoIds(sql: Sql, userId: string): Promise<string[]> {
  const result = await sql.raw(
    `select coalesce(json_agg(video_id order by first_watched_at desc), '[]')::text as ids
     from watched_videos where user_id = ?`,
    [userId],
  );
  return JSON.parse(rowsOf<{ ids: string }>(result)[0]?.ids ?? "[]") as string[];
}

/** The watched videos of several participants, as (user, video) pairs. */
export async function watchedPairs(
  sql: Sql,
  userIds: readonly string[],
): Promise<{ user_id: string; video_id: string }[]> {
  if (userIds.length === 0) return [];
  return (await sql("watched_videos").whereIn("user_id", userIds).select("user_id", "video_id")) as {
    user_id: string;
    video_id: string;
  }[];
}
