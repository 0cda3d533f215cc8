import { rowsOf, type Sql } from "@feedlab/sql";

/** The size and freshness of an experiment's training interactions. */
export interface InteractionTotals {
  /** Rows: (participant, video) pairs with a training weight. */
  readonly interactions: number;
  /** Contributing events, summed over the rows. */
  readonly events: number;
  /** The newest `last_received_at`, as text (keeps its microseconds through the round trip). */
  readonly watermark: string | null;
}

/**
 * Totals over the real participants who still exist: a simulated participant's rows (api.md,
 * "Simulated participants") never make the training data fresh.
 */
export async function interactionTotals(sql: Sql, experimentId: string): Promise<InteractionTotals> {
  const result = await sql.raw(
    `select max(i.last_received_at)::text as watermark, coalesce(sum(i.events), 0)::bigint::text as events,
            count(*)::int as n
     from interactions i join users u on u.id = i.user_id where i.experiment_id = ? and not i.simulated`,
    [experimentId],
  );
  const row = rowsOf<{ watermark: string | null; events: string; n: number }>(result)[0];
  return {
    interactions: Number(row?.n ?? 0),
    events: Number(row?.events ?? 0),
    watermark: row?.watermark ?? null,
  };
}

/** One interaction: participant, video (external id), summed weight, time of the last event (ms). */
export type InteractionRow = readonly [userId: string, videoId: string, weight: number, lastAtMs: number];

/**
 * The experiment's interactions of participants who still exist, in (participant, video) order, the
 * page after `after` (a participant and video), as JSON text: cheaper than rows through PGlite's
 * worker and the pg protocol. Real participants' only, or with `simulated` the dry runs' simulated
 * participants' only (api.md "Simulated participants": they train a model of their own).
 */
export async function interactionPage(
  sql: Sql,
  experimentId: string,
  after: readonly [string, string] | null,
  limit: number,
  simulated = false,
): Promise<InteractionRow[]> {
  const [user, video] = after ?? ["00000000-0000-0000-0000-000000000000", ""];
  const page = rowsOf<{ rows: string }>(
    await sql.raw(
      `select coalesce(json_agg(json_build_array(x.user_id, x.video_id, x.weight, x.at) order by x.user_id, x.video_id), '[]')::text as rows
       from (select i.user_id, i.video_id, i.weight, (extract(epoch from i.last_at) * 1000)::float8 as at
             from interactions i join users u on u.id = i.user_id
             where i.experiment_id = ? and i.simulated = ? and (i.user_id, i.video_id) > (?::uuid, ?)
             order by i.user_id, i.video_id limit ?) x`,
      [experimentId, simulated, user, video, limit],
    ),
  );
  const rows = JSON.parse(page[0]?.rows ?? "[]") as [string, string, number | string, number | string][];
  return rows.map(([u, v, w, t]) => [u, v, Number(w), Number(t)] as const);
}
