import type { Sql } from "@feedlab/sql";

/** One participant's counts for one surface and recommender. */
export interface EvaluationRow {
  readonly group_id: string;
  readonly user_id: string;
  readonly surface: "feed" | "watch";
  readonly recommender: string;
  readonly impressions: number;
  readonly feed_clicks: number;
  readonly plays: number;
  readonly completions: number;
  readonly likes: number;
}

/** An experiment's evaluation counts, a row per participant, surface and recommender. */
export async function evaluationCounts(sql: Sql, experimentId: string): Promise<EvaluationRow[]> {
  const rows = (await sql("evaluation_counts")
    .where("experiment_id", experimentId)
    .select(
      "group_id",
      "user_id",
      "surface",
      "recommender",
      "impressions",
      "feed_clicks",
      "plays",
      "completions",
      "likes",
    )) as Record<string, string | number>[];
  return rows.map((r) => ({
    group_id: String(r.group_id),
    user_id: String(r.user_id),
    surface: r.surface as "feed" | "watch",
    recommender: String(r.recommender),
    impressions: Number(r.impressions),
    feed_clicks: Number(r.feed_clicks),
    plays: Number(r.plays),
    completions: Number(r.completions),
    likes: Number(r.likes),
  }));
}

export type TimelineBucket = "minute" | "hour" | "day";
/** The width of each timeline bucket. */
export const BUCKET_SECONDS: Record<TimelineBucket, number> = { minute: 60, hour: 3600, day: 86_400 };

/** One group's counts in one time bucket (UTC), not cumulative. */
export interface TimelinePoint {
  readonly group_id: string;
  readonly at: Date;
  readonly impressions: number;
  readonly feed_clicks: number;
  readonly plays: number;
  readonly completions: number;
  readonly likes: number;
}

/** An experiment's evaluation counts per group and bucket, in time order. */
export async function evaluationTimeline(
  sql: Sql,
  experimentId: string,
  bucket: TimelineBucket,
): Promise<TimelinePoint[]> {
  // A literal from the table above (never input), so the select and the grouping are one expression.
  const at = `floor(extract(epoch from minute) / ${BUCKET_SECONDS[bucket]}) * ${BUCKET_SECONDS[bucket]}`;
  const rows = (await sql("evaluation_timeline")
    .where("experiment_id", experimentId)
    .groupByRaw(`group_id, ${at}`)
    .orderByRaw(at)
    .select(
      "group_id",
      sql.raw(`${at} as at`),
      sql.raw("sum(impressions) as impressions"),
      sql.raw("sum(feed_clicks) as feed_clicks"),
      sql.raw("sum(plays) as plays"),
      sql.raw("sum(completions) as completions"),
      sql.raw("sum(likes) as likes"),
    )) as Record<string, string | number>[];
  return rows.map((r) => ({
    group_id: String(r.group_id),
    at: new Date(Number(r.at) * 1000),
    impressions: Number(r.impressions),
    feed_clicks: Number(r.feed_clicks),
    plays: Number(r.plays),
    completions: Number(r.completions),
    likes: Number(r.likes),
  }));
}

/** The first and last minute with counts, or null for an experiment without any. */
export async function evaluationSpan(
  sql: Sql,
  experimentId: string,
): Promise<{ first: Date; last: Date } | null> {
  const row = (await sql("evaluation_timeline")
    .where("experiment_id", experimentId)
    .first(sql.raw("min(minute) as first"), sql.raw("max(minute) as last"))) as
    | { first: Date | null; last: Date | null }
    | undefined;
  return row?.first && row.last ? { first: new Date(row.first), last: new Date(row.last) } : null;
}
