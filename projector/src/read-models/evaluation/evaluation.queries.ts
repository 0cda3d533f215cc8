import type { Sql } from "@feedlab/ingest";

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
