import { rowsOf, type Sql } from "@feedlab/sql";
import { USERS } from "../../owned.ts";
import { quantileOf } from "./response-latency.buckets.ts";

/**
 * p50 and p95 of a surface's reported latencies in ms (null parts when none was reported), with how many
 * events (page loads) and participants they rest on.
 */
interface LatencyQuantiles {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly requests: number;
  readonly participants: number;
}

/** An arm's latencies per surface: the feed (HOME_FEED) and the related list (RECOMMENDATIONS). */
export interface ArmLatencyRow {
  readonly feed: LatencyQuantiles;
  readonly related: LatencyQuantiles;
}

const quantiles = (
  histogram: ReadonlyMap<number, number> | undefined,
  participants = 0,
): LatencyQuantiles => ({
  p50: histogram ? quantileOf(histogram, 0.5) : null,
  p95: histogram ? quantileOf(histogram, 0.95) : null,
  requests: histogram ? [...histogram.values()].reduce((sum, n) => sum + n, 0) : 0,
  participants,
});

/**
 * Each group's latency quantiles per surface, over the events of its participants (the participant's
 * group from `users`), leaving out `leftOut` (excluded or simulated participants, as the results
 * leave them out), summed in the database per group, surface and bucket. Pools events, not participants: a participant who loaded ten feeds weighs ten.
 * Each surface also counts its events and the participants who made them: what the quantiles rest on.
 * Reads the histogram read model, never raw events. A group without reported latencies is absent.
 */
export async function latencyByGroup(
  sql: Sql,
  experimentId: string,
  leftOut: ReadonlySet<string>,
): Promise<Map<string, ArmLatencyRow>> {
  const rows = rowsOf<{ group_id: string; surface: string; bucket_ms: number; events: string }>(
    await sql.raw(
      `select u.group_id, r.surface, r.bucket_ms, sum(r.events) as events
       from response_latency r join users u on u.id = r.user_id
       where r.experiment_id = ? and r.user_id not in ${USERS}
       group by u.group_id, r.surface, r.bucket_ms`,
      [experimentId, JSON.stringify([...leftOut])],
    ),
  );
  const people = rowsOf<{ group_id: string; surface: string; participants: string | number }>(
    await sql.raw(
      `select u.group_id, r.surface, count(distinct r.user_id) as participants
       from response_latency r join users u on u.id = r.user_id
       where r.experiment_id = ? and r.events > 0 and r.user_id not in ${USERS}
       group by u.group_id, r.surface`,
      [experimentId, JSON.stringify([...leftOut])],
    ),
  );
  const participants = new Map(
    people.map((p) => [`${p.group_id}\u0000${p.surface}`, Number(p.participants)]),
  );
  const histograms = new Map<string, Map<number, number>>();
  for (const r of rows) {
    const key = `${r.group_id}\u0000${r.surface}`;
    const histogram = histograms.get(key) ?? new Map<number, number>();
    histogram.set(Number(r.bucket_ms), Number(r.events));
    histograms.set(key, histogram);
  }
  const groups = new Set(rows.map((r) => String(r.group_id)));
  return new Map(
    [...groups].map((g) => [
      g,
      {
        feed: quantiles(histograms.get(`${g}\u0000feed`), participants.get(`${g}\u0000feed`)),
        related: quantiles(histograms.get(`${g}\u0000related`), participants.get(`${g}\u0000related`)),
      },
    ]),
  );
}
