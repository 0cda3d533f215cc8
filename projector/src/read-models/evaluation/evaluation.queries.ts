import { rowsOf, type Sql } from "@feedlab/sql";
import { USERS } from "../../owned.ts";

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

/** Each of `userIds`' feed impressions and clicks, summed over recommenders (a participant without any is absent). */
export async function feedCountsByUser(
  sql: Sql,
  userIds: readonly string[],
): Promise<Map<string, { impressions: number; clicks: number }>> {
  const out = new Map<string, { impressions: number; clicks: number }>();
  if (userIds.length === 0) return out;
  const rows = (await sql("evaluation_counts")
    .whereIn("user_id", userIds)
    .andWhere("surface", "feed")
    .groupBy("user_id")
    .select("user_id")
    .sum({ impressions: "impressions", clicks: "feed_clicks" })) as {
    user_id: string;
    impressions: string | number;
    clicks: string | number;
  }[];
  for (const r of rows) out.set(r.user_id, { impressions: Number(r.impressions), clicks: Number(r.clicks) });
  return out;
}

/**
 * Sums over participants of one of the three rates (y over x), each participant one cluster: enough for
 * the rate's clustered interval (api/src/results/ratio.ts), so an arm of 10,000 participants travels
 * as six numbers.
 */
export interface RateSums {
  /** Participants with a numerator or a denominator. */
  readonly n: number;
  readonly x: number;
  readonly y: number;
  readonly xx: number;
  readonly yy: number;
  readonly xy: number;
}

/** An arm's or a recommender's counts, and the sums its clustered rates need. */
export interface EvaluationSums {
  readonly impressions: number;
  readonly feed_clicks: number;
  readonly plays: number;
  readonly completions: number;
  readonly likes: number;
  /** feed_clicks over impressions. */
  readonly ctr: RateSums;
  /** completions over plays. */
  readonly completion_rate: RateSums;
  /** likes over plays. */
  readonly like_rate: RateSums;
}

/** One row of evaluationSums: an arm (`group_id`) or a surface's recommender. */
export type EvaluationSumsRow = EvaluationSums &
  ({ readonly group_id: string } | { readonly surface: "feed" | "watch"; readonly recommender: string });

/**
 * An experiment's evaluation counts summed in the database per arm and per surface and recommender,
 * leaving out `leftOut`, with each rate's sums over participants (a participant's rows summed first:
 * one cluster each), so `/stats` reads a row per arm, not one per participant. Counts are summed as
 * float8: exact for integers below 2^53, and several times faster than PostgreSQL's numeric.
 */
export async function evaluationSums(
  sql: Sql,
  experimentId: string,
  leftOut: ReadonlySet<string>,
): Promise<EvaluationSumsRow[]> {
  const counts = "i, c, p, k, l";
  const rows = rowsOf<Record<string, string | number | null>>(
    await sql.raw(
      `with rows as (
         select group_id, user_id, surface, recommender, impressions::float8 as i, feed_clicks::float8 as c,
           plays::float8 as p, completions::float8 as k, likes::float8 as l
         from evaluation_counts where experiment_id = ? and user_id not in ${USERS}
       ), clusters as (
         select group_id::text as arm, null as surface, null as recommender,
           sum(i) as i, sum(c) as c, sum(p) as p, sum(k) as k, sum(l) as l
         from rows group by group_id, user_id
         union all
         select null, surface, recommender, ${counts} from rows
       )
       select arm, surface, recommender, sum(i) as i, sum(c) as c, sum(p) as p, sum(k) as k, sum(l) as l,
         count(*) filter (where i > 0 or c > 0) as ctr_n, sum(i * i) as ii, sum(c * c) as cc, sum(i * c) as ic,
         count(*) filter (where p > 0 or k > 0) as completion_n, sum(p * p) as pp, sum(k * k) as kk,
         sum(p * k) as pk, count(*) filter (where p > 0 or l > 0) as like_n, sum(l * l) as ll, sum(p * l) as pl
       from clusters group by arm, surface, recommender`,
      [experimentId, JSON.stringify([...leftOut])],
    ),
  );
  return rows.map((r) => {
    const n = (k: string) => Number(r[k] ?? 0);
    const sums: EvaluationSums = {
      impressions: n("i"),
      feed_clicks: n("c"),
      plays: n("p"),
      completions: n("k"),
      likes: n("l"),
      ctr: { n: n("ctr_n"), x: n("i"), y: n("c"), xx: n("ii"), yy: n("cc"), xy: n("ic") },
      completion_rate: { n: n("completion_n"), x: n("p"), y: n("k"), xx: n("pp"), yy: n("kk"), xy: n("pk") },
      like_rate: { n: n("like_n"), x: n("p"), y: n("l"), xx: n("pp"), yy: n("ll"), xy: n("pl") },
    };
    return r.arm === null
      ? { ...sums, surface: r.surface as "feed" | "watch", recommender: String(r.recommender) }
      : { ...sums, group_id: String(r.arm) };
  });
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

/** Each arm's totals over its participants but `leftOut`: what adaptive assignment's metrics divide. */
export async function armTotals(
  sql: Sql,
  experimentId: string,
  leftOut: ReadonlySet<string>,
): Promise<Map<string, { impressions: number; feed_clicks: number; plays: number; likes: number }>> {
  const rows = rowsOf<Record<string, string | number | null>>(
    await sql.raw(
      `select group_id, sum(impressions) as i, sum(feed_clicks) as c, sum(plays) as p, sum(likes) as l
       from evaluation_counts where experiment_id = ? and user_id not in ${USERS} group by group_id`,
      [experimentId, JSON.stringify([...leftOut])],
    ),
  );
  return new Map(
    rows.map((r) => [
      String(r.group_id),
      {
        impressions: Number(r.i ?? 0),
        feed_clicks: Number(r.c ?? 0),
        plays: Number(r.p ?? 0),
        likes: Number(r.l ?? 0),
      },
    ]),
  );
}
