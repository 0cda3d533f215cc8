import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { deleteOwned, USERS } from "../../owned.ts";

/**
 * Erases participants from co-views. The projection counted each pair of a participant's videos once
 * for them, so one comes off each of their pairs and a pair left at 0 goes; then their videos
 * (`co_view_videos`) go. A simulated participant has no videos there, so nothing comes off for them.
 * Pairs are keyed smaller id first as the projection orders them, by code unit, not by the
 * database's collation: ids compare under `collate "C"` (byte order), which agrees with JavaScript's
 * order for every id without characters beyond the Basic Multilingual Plane. Answers the rows
 * deleted or changed.
 */
export async function eraseCoViews(sql: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  const changed = rowsOf<{ experiment_id: string; video_a: string; video_b: string; count: number }>(
    await sql.raw(
      `with mine as (
         select a.experiment_id, a.video_id as video_a, b.video_id as video_b, count(*) as n
         from co_view_videos a join co_view_videos b
           on b.user_id = a.user_id and a.video_id collate "C" < b.video_id collate "C"
         where a.user_id in ${USERS}
         group by a.experiment_id, a.video_id, b.video_id)
       update co_views c set count = c.count - m.n from mine m
       where c.experiment_id = m.experiment_id and c.video_a = m.video_a and c.video_b = m.video_b
       returning c.experiment_id, c.video_a, c.video_b, c.count`,
      [JSON.stringify(userIds)],
    ),
  );
  const empty = changed.filter((r) => Number(r.count) <= 0);
  for (let i = 0; i < empty.length; i += 2000) {
    await sql.raw(
      `delete from co_views c using json_to_recordset(?::json) as z(experiment_id uuid, video_a text, video_b text)
       where c.experiment_id = z.experiment_id and c.video_a = z.video_a and c.video_b = z.video_b`,
      [JSON.stringify(empty.slice(i, i + 2000))],
    );
  }
  return changed.length + (await deleteOwned(sql, "co_view_videos", userIds));
}
