import type { Knex } from "knex";
import type { Row, RowOp } from "../ops.ts";

// Span operations (runs of arrival times per key, `RowOp` kind "span") as rows and as the upsert that
// merges a stored row's runs with a batch's: the part of the SQL planner (plan.ts) that merges runs.

export type Span = Extract<RowOp, { kind: "span" }>;

/** Runs of arrival times, `[first, last]` in epoch milliseconds, no two within `gapMs` of each other. */
type Runs = [number, number][];

/** Times (and runs) merged into runs: sorted, and joined where one begins within `gapMs` of the last. */
function mergeRuns(runs: readonly (readonly [number, number])[], gapMs: number): Runs {
  const out: Runs = [];
  for (const [from, to] of [...runs].sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    const last = out.at(-1);
    if (last && from <= last[1] + gapMs) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/**
 * The spans of one table as new rows, one per key: the runs of the batch's times, and the earliest and
 * latest time.
 */
export function spanRows(ops: readonly Span[]): Row[] {
  const byKey = new Map<string, { op: Span; times: [number, number][] }>();
  for (const op of ops) {
    const id = JSON.stringify(op.key);
    const entry = byKey.get(id) ?? { op, times: [] };
    const t = Date.parse(op.at);
    entry.times.push([t, t]);
    byKey.set(id, entry);
  }
  return [...byKey]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { op, times }]) => {
      const runs = mergeRuns(times, op.gapMs);
      const { columns: c } = op;
      return {
        ...op.init,
        ...op.key,
        [c.runs]: { json: JSON.stringify(runs) },
        [c.first]: new Date(runs[0]?.[0] ?? 0).toISOString(),
        [c.last]: new Date(Math.max(...runs.map((r) => r[1]))).toISOString(),
      };
    });
}

/**
 * A table's spans as one upsert: a stored row's runs and the batch's are merged as `mergeRuns` does,
 * in SQL (islands: a run begins where it starts more than the gap after every run before it ends). The
 * runs are a set's, so the rows are the same whatever order or batches the times come in: a replay
 * rebuilds exactly what the live run wrote, re-driven dead letters included.
 */
export function spanConflict(table: string, first: Span): { sql: string; bindings: Knex.RawBinding[] } {
  const { runs, first: earliest, last } = first.columns;
  const keyCols = Object.keys(first.key);
  return {
    sql: `on conflict (${keyCols.map(() => "??").join(", ")}) do update set
      ?? = (select jsonb_agg(jsonb_build_array(g.f, g.t) order by g.f) from (
        select min(y.f) as f, max(y.t) as t from (
          select z.f, z.t, sum(z.starts) over (order by z.f, z.t) as island from (
            select x.f, x.t,
              case when x.f > max(x.t) over (order by x.f, x.t rows between unbounded preceding and 1 preceding) + ?
                then 1 else 0 end as starts
            from (
              select (v ->> 0)::bigint as f, (v ->> 1)::bigint as t
              from jsonb_array_elements(??.?? || excluded.??) v
            ) x
          ) z
        ) y group by y.island
      ) g),
      ?? = least(??.??, excluded.??), ?? = greatest(??.??, excluded.??)`,
    bindings: [
      ...keyCols,
      ...[runs, first.gapMs, table, runs, runs],
      ...[earliest, table, earliest, earliest],
      ...[last, table, last, last],
    ],
  };
}
