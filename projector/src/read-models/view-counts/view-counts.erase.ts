import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { USERS } from "../../owned.ts";

/**
 * Erases participants from the view counts: their plays (read from the events store, still there)
 * come off each video's count, the last play time is the latest of the plays left, and a count that
 * reaches 0 goes. Simulated plays never counted, so they come off nothing and set no time. Answers
 * the rows changed.
 */
export async function eraseViewCounts(sql: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  const users = JSON.stringify(userIds);
  const changed = rowsOf<{ experiment_id: string; video_id: string; plays: string | number }>(
    await sql.raw(
      `with mine as (
         select experiment_id, video_id, count(*) as n from events
         where user_id in ${USERS} and event_type = 'VIDEO_PLAY' and video_id is not null
           and not simulated
         group by experiment_id, video_id)
       update video_view_counts v set plays = v.plays - m.n,
         last_played_at = coalesce((select max(e.received_at) from events e
           where e.experiment_id = v.experiment_id and e.video_id = v.video_id
             and e.event_type = 'VIDEO_PLAY' and not e.simulated and e.user_id not in ${USERS}),
           v.last_played_at)
       from mine m where v.experiment_id = m.experiment_id and v.video_id = m.video_id
       returning v.experiment_id, v.video_id, v.plays`,
      [users, users],
    ),
  );
  const empty = changed.filter((r) => Number(r.plays) <= 0);
  for (const r of empty)
    await sql("video_view_counts").where({ experiment_id: r.experiment_id, video_id: r.video_id }).delete();
  return changed.length;
}
