import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { deleteOwned, USERS } from "../../owned.ts";
import { EVALUATION_COUNTS } from "./evaluation.counts.ts";

/**
 * Erases participants from evaluation: their per-participant rows go, and their events (read from the
 * events store, still there) come off the per-minute counts, except simulated ones, which never
 * counted there; a minute left with no counts goes.
 * The counted types and their columns (`EVALUATION_COUNTS`) are constants of the code, never input,
 * and go into the SQL as they are. Answers the rows deleted or changed.
 */
export async function eraseEvaluation(sql: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  const types = Object.keys(EVALUATION_COUNTS);
  const columns = Object.values(EVALUATION_COUNTS);
  const sums = Object.entries(EVALUATION_COUNTS)
    .map(([type, column]) => `count(*) filter (where event_type = '${type}') as ${column}`)
    .join(", ");
  const sets = columns.map((column) => `${column} = t.${column} - m.${column}`).join(", ");
  const changed = rowsOf<Record<string, string | number>>(
    await sql.raw(
      // The projection's minute is the UTC minute of the arrival (`minuteOf`); date_trunc gives the
      // same instant in any zone whose offset is whole minutes.
      `with mine as (
         select experiment_id, group_id, date_trunc('minute', received_at) as minute, ${sums}
         from events where user_id in ${USERS} and not simulated
           and event_type in (${types.map((t) => `'${t}'`).join(", ")})
         group by experiment_id, group_id, date_trunc('minute', received_at))
       update evaluation_timeline t set ${sets} from mine m
       where t.experiment_id = m.experiment_id and t.group_id = m.group_id and t.minute = m.minute
       returning t.experiment_id, t.group_id, t.minute, ${columns.map((c) => `t.${c}`).join(", ")}`,
      [JSON.stringify(userIds)],
    ),
  );
  const empty = changed.filter((r) => columns.every((c) => Number(r[c]) <= 0));
  for (const r of empty)
    await sql("evaluation_timeline")
      .where({ experiment_id: r.experiment_id, group_id: r.group_id, minute: r.minute })
      .delete();
  return changed.length + (await deleteOwned(sql, "evaluation_counts", userIds));
}
