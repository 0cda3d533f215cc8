import type { LoggedEvent } from "@feedlab/schemas";
import { rowsOf } from "@feedlab/sql";
import type { RowOp } from "../../ops.ts";
import { deleteOwned, USERS } from "../../owned.ts";
import type { Projection } from "../../read-model.ts";
import { evaluationMigrations } from "./evaluation.migration.ts";

/** The events evaluation counts (spec: the evaluation reader), and the column each adds to. */
export const EVALUATION_COUNTS = {
  IMPRESSION: "impressions",
  FEED_CLICK: "feed_clicks",
  VIDEO_PLAY: "plays",
  VIDEO_ENDED: "completions",
  LIKE: "likes",
} as const;

export type EvaluationCount = (typeof EVALUATION_COUNTS)[keyof typeof EVALUATION_COUNTS];

/**
 * The surface an event counts for, and so the recommender (stamped at intake): impressions by the
 * list they were in (`related` is the watch page's), feed clicks on the feed; plays, completions
 * and likes happen on the watch page and count for it.
 */
export function surfaceOf(e: LoggedEvent): "feed" | "watch" {
  if (e.event_type === "IMPRESSION") return e.payload.context === "related" ? "watch" : "feed";
  return e.event_type === "FEED_CLICK" ? "feed" : "watch";
}

/** The minute an ISO 8601 UTC time falls in, as an ISO timestamp. */
export const minuteOf = (iso: string): string => `${new Date(iso).toISOString().slice(0, 16)}:00.000Z`;

/**
 * Per participant, surface and recommender: impressions, feed clicks, plays, completions, likes;
 * and the same counts per group and minute (results over time).
 */
export const evaluationProjection: Projection = {
  name: "evaluation",
  tables: ["evaluation_counts", "evaluation_timeline"],
  migrations: evaluationMigrations,
  // Their rows go, and their events (from the events store) come off the per-minute counts.
  async erase(sql, userIds) {
    const users = JSON.stringify(userIds);
    const sums = Object.entries(EVALUATION_COUNTS)
      .map(([type, column]) => `count(*) filter (where event_type = '${type}') as ${column}`)
      .join(", ");
    const sets = Object.values(EVALUATION_COUNTS)
      .map((column) => `${column} = t.${column} - m.${column}`)
      .join(", ");
    const columns = Object.values(EVALUATION_COUNTS);
    const changed = rowsOf<Record<string, string | number>>(
      await sql.raw(
        `with mine as (
           select experiment_id, group_id, date_trunc('minute', received_at) as minute, ${sums}
           from events where user_id in ${USERS} and event_type in (${Object.keys(EVALUATION_COUNTS)
             .map((t) => `'${t}'`)
             .join(", ")})
           group by experiment_id, group_id, date_trunc('minute', received_at))
         update evaluation_timeline t set ${sets} from mine m
         where t.experiment_id = m.experiment_id and t.group_id = m.group_id and t.minute = m.minute
         returning t.experiment_id, t.group_id, t.minute, ${columns.map((c) => `t.${c}`).join(", ")}`,
        [users],
      ),
    );
    const empty = changed.filter((r) => columns.every((c) => Number(r[c]) <= 0));
    for (const r of empty)
      await sql("evaluation_timeline")
        .where({ experiment_id: r.experiment_id, group_id: r.group_id, minute: r.minute })
        .delete();
    return changed.length + (await deleteOwned(sql, "evaluation_counts", userIds));
  },
  project: (e): RowOp[] => {
    const column = EVALUATION_COUNTS[e.event_type as keyof typeof EVALUATION_COUNTS];
    if (!column) return [];
    const surface = surfaceOf(e);
    return [
      {
        kind: "accumulate",
        table: "evaluation_counts",
        key: {
          experiment_id: e.experiment_id,
          group_id: e.group_id,
          user_id: e.user_id,
          surface,
          recommender: surface === "feed" ? e.algorithm_feed : e.algorithm_watch,
        },
        add: { [column]: 1 },
        max: { last_at: e.received_at },
      },
      {
        kind: "accumulate",
        table: "evaluation_timeline",
        key: { experiment_id: e.experiment_id, group_id: e.group_id, minute: minuteOf(e.received_at) },
        add: { [column]: 1 },
      },
    ];
  },
};
