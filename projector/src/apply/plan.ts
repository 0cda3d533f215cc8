import { pipelined, rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { type InsertedKeys, keyOf, type Row, type RowOp, type Value } from "../ops.ts";

// The SQL planner: a batch's row operations become a few multi-row statements per table, built
// without the database (planOps) and then sent together in the batch's transaction (runPlan).

/**
 * Rows per statement. Rows travel as one JSON parameter (see `insertRows`), so there is no bind
 * parameter limit; this only bounds the size of one statement.
 */
const ROWS_PER_STATEMENT = 5000;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/** Rows as a JSON array of objects over `columns`; JSON-text values go in as documents. */
function rowsJson(rows: readonly Row[], columns: readonly string[]): string {
  const names = columns.map((c) => JSON.stringify(c));
  let out = "[";
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Row;
    out += i === 0 ? "{" : ",{";
    for (let j = 0; j < columns.length; j++) {
      const v = row[columns[j] as string] ?? null;
      out += `${j === 0 ? "" : ","}${names[j]}:${v !== null && typeof v === "object" ? v.json : JSON.stringify(v)}`;
    }
    out += "}";
  }
  return `${out}]`;
}

/**
 * One multi-row insert whose rows travel as a single JSON parameter, typed by the table's own row
 * type (`json_populate_recordset`). Far cheaper than a placeholder per value: less SQL to build and
 * send, and less for the database to parse and plan. `conflict` is the rest of the statement
 * (`on conflict ... do ...`, `returning ...`) with its bindings.
 */
function insertRows(
  table: string,
  rows: readonly Row[],
  conflict: string,
  conflictBindings: readonly Knex.RawBinding[],
): Planned {
  const columns = Object.keys(rows[0] ?? {});
  const list = columns.map(() => "??").join(", ");
  return {
    sql: `insert into ?? (${list}) select ${list} from json_populate_recordset(null::??, ?::json) ${conflict}`,
    bindings: [table, ...columns, ...columns, table, rowsJson(rows, columns), ...conflictBindings],
  };
}

/** A statement built, not yet sent: knex's raw SQL and its bindings. */
interface Planned {
  readonly sql: string;
  readonly bindings: readonly Knex.RawBinding[];
}

/**
 * Row operations as the statements that apply them (see `planOps`), built before a transaction so
 * that the transaction holds the database only while they run; and which statements answer the
 * keys of which table's inserts.
 */
export interface OpsPlan {
  readonly statements: readonly Planned[];
  readonly answers: readonly { table: string; key: readonly string[]; statement: number }[];
}

/** Orders pairs by their first element, a text (a table's name, a row's key). */
const byFirst = ([a]: readonly [string, unknown], [b]: readonly [string, unknown]) =>
  a < b ? -1 : a > b ? 1 : 0;

/** Rows sorted by their key columns (the order in which a statement locks them). */
function inKeyOrder(rows: readonly Row[], key: readonly string[]): Row[] {
  const keyed = rows.map((row) => [keyOf(key.map((c) => row[c])), row] as const);
  keyed.sort(byFirst);
  return keyed.map(([, row]) => row);
}

/** Of rows sharing a key, the one whose `least` columns are smallest (compared in order). */
function leastPerKey(rows: readonly Row[], key: readonly string[], least: readonly string[]): Row[] {
  const best = new Map<string, Row>();
  for (const row of rows) {
    const k = keyOf(key.map((c) => row[c]));
    const held = best.get(k);
    if (!held || compareColumns(row, held, least) < 0) best.set(k, row);
  }
  return [...best.values()];
}

function compareColumns(a: Row, b: Row, columns: readonly string[]): number {
  for (const c of columns) {
    const [x, y] = [a[c] ?? null, b[c] ?? null];
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

const greater = (a: Value, b: Value): Value => (a === null ? b : b === null ? a : b > a ? b : a);
const lesser = (a: Value, b: Value): Value => (a === null ? b : b === null ? a : b < a ? b : a);

type Accumulate = Extract<RowOp, { kind: "accumulate" }>;

interface AccumulatedRow {
  readonly key: Row;
  readonly add: Record<string, number>;
  readonly max: Record<string, Value>;
  readonly min: Record<string, Value>;
  readonly init: Record<string, Value>;
}

/** Sums, maxima and minima of all ops on the same key, so each key is written once per batch. */
function accumulate(ops: readonly Accumulate[]): Map<string, AccumulatedRow> {
  const rows = new Map<string, AccumulatedRow>();
  for (const op of ops) {
    const id = JSON.stringify(op.key);
    let r = rows.get(id);
    if (!r) {
      r = { key: op.key, add: {}, max: {}, min: {}, init: { ...op.init } };
      rows.set(id, r);
    }
    for (const [c, v] of Object.entries(op.add ?? {})) r.add[c] = (r.add[c] ?? 0) + v;
    for (const [c, v] of Object.entries(op.max ?? {}))
      r.max[c] = c in r.max ? greater(r.max[c] ?? null, v) : v;
    for (const [c, v] of Object.entries(op.min ?? {}))
      r.min[c] = c in r.min ? lesser(r.min[c] ?? null, v) : v;
  }
  return rows;
}

type Span = Extract<RowOp, { kind: "span" }>;

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
function spanRows(ops: readonly Span[]): Row[] {
  const byKey = new Map<string, { op: Span; times: [number, number][] }>();
  for (const op of ops) {
    const id = JSON.stringify(op.key);
    const entry = byKey.get(id) ?? { op, times: [] };
    const t = Date.parse(op.at);
    entry.times.push([t, t]);
    byKey.set(id, entry);
  }
  return [...byKey].sort(byFirst).map(([, { op, times }]) => {
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
function spanConflict(table: string, first: Span): { sql: string; bindings: Knex.RawBinding[] } {
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

/**
 * Applies row operations inside the caller's transaction: inserts first (one multi-row statement per
 * table and chunk, existing keys kept), then accumulations (one upsert per table and chunk). Answers
 * the keys the inserts created.
 */
export async function applyOps(trx: Knex.Transaction, ops: readonly RowOp[]): Promise<InsertedKeys> {
  return runPlan(trx, planOps(ops));
}

/** The statements of `applyOps`, built (nothing is sent). */
export function planOps(ops: readonly RowOp[]): OpsPlan {
  const inserts = new Map<string, { key: readonly string[]; least?: readonly string[]; rows: Row[] }>();
  const accumulates = new Map<string, Accumulate[]>();
  const spans = new Map<string, Span[]>();
  for (const op of ops) {
    switch (op.kind) {
      case "insert": {
        const entry = inserts.get(op.table) ?? { key: op.key, least: op.least, rows: [] };
        entry.rows.push(op.row);
        inserts.set(op.table, entry);
        break;
      }
      case "accumulate": {
        const list = accumulates.get(op.table) ?? [];
        list.push(op);
        accumulates.set(op.table, list);
        break;
      }
      case "span": {
        const list = spans.get(op.table) ?? [];
        list.push(op);
        spans.set(op.table, list);
        break;
      }
      default: {
        const never: never = op;
        throw new Error(`unknown row op ${JSON.stringify(never)}`);
      }
    }
  }

  // Tables in name order, and rows in key order within each: concurrent batches (other partitions,
  // other projectors) then lock shared rows in one global order, so they wait for each other instead
  // of deadlocking (a deadlock aborts a batch, and the consumer restarts seconds later).
  const byName = <T>(map: Map<string, T>) => [...map].sort(byFirst);
  const statements: Planned[] = [];
  const answers: { table: string; key: readonly string[]; statement: number }[] = [];
  for (const [table, { key, least, rows: unordered }] of byName(inserts)) {
    const rows = inKeyOrder(unordered, key);
    const keyList = key.map(() => "??").join(", ");
    let conflict = `on conflict (${keyList}) do nothing returning ${keyList}`;
    let bindings: Knex.RawBinding[] = [...key, ...key];
    let todo: readonly Row[] = rows;
    if (least) {
      // One row per key (a statement may not update a row twice), the least; then the stored row
      // gives way only to a lesser one. `xmax = 0` tells a created row from an updated one.
      todo = leastPerKey(rows, key, least);
      const columns = Object.keys(rows[0] ?? {}).filter((c) => !key.includes(c));
      const tuple = least.map(() => "??.??").join(", ");
      conflict = `on conflict (${keyList}) do update set ${columns.map(() => "?? = excluded.??").join(", ")}
        where (${least.map(() => "excluded.??").join(", ")}) < (${tuple})
        returning ${keyList}, (xmax = 0) as created`;
      bindings = [
        ...key,
        ...columns.flatMap((c) => [c, c]),
        ...least,
        ...least.flatMap((c) => [table, c]),
        ...key,
      ];
    }
    for (const chunk of chunks(todo)) {
      answers.push({ table, key, statement: statements.length });
      statements.push(insertRows(table, chunk, conflict, bindings));
    }
  }

  for (const [table, list] of byName(accumulates)) {
    const rows = [...accumulate(list)].sort(byFirst).map(([, r]) => r);
    const first = rows[0];
    if (!first) continue;
    const keyCols = Object.keys(first.key);
    const sets: string[] = [];
    const bindings: Knex.RawBinding[] = [...keyCols];
    const merge = (columns: readonly string[], expression: string) => {
      for (const c of columns) {
        sets.push(`?? = ${expression}`);
        bindings.push(c, table, c, c);
      }
    };
    // Ops on one table may name different columns (one event adds impressions, another clicks): the
    // statement covers them all, and a row adds 0 to the columns it does not name (greatest and least
    // skip its nulls).
    const columnsOf = (part: (r: AccumulatedRow) => Record<string, unknown>) => [
      ...new Set(rows.flatMap((r) => Object.keys(part(r)))),
    ];
    const [adds, maxes, mins] = [columnsOf((r) => r.add), columnsOf((r) => r.max), columnsOf((r) => r.min)];
    merge(adds, "??.?? + excluded.??");
    merge(maxes, "greatest(??.??, excluded.??)");
    merge(mins, "least(??.??, excluded.??)");
    const target = keyCols.map(() => "??").join(", ");
    const conflict =
      sets.length > 0
        ? `on conflict (${target}) do update set ${sets.join(", ")}`
        : `on conflict (${target}) do nothing`;
    const values = rows.map((r) => ({
      ...r.init,
      ...r.key,
      ...Object.fromEntries(adds.map((c) => [c, r.add[c] ?? 0])),
      ...Object.fromEntries(maxes.map((c) => [c, r.max[c] ?? null])),
      ...Object.fromEntries(mins.map((c) => [c, r.min[c] ?? null])),
    }));
    for (const chunk of chunks(values)) statements.push(insertRows(table, chunk, conflict, bindings));
  }

  for (const [table, list] of byName(spans)) {
    const first = list[0];
    if (!first) continue;
    const { runs, first: earliest, last } = first.columns;
    const differs = (op: Span) =>
      op.gapMs !== first.gapMs ||
      op.columns.runs !== runs ||
      op.columns.first !== earliest ||
      op.columns.last !== last;
    if (list.some(differs)) throw new Error(`span ops on ${table} must share their gap and columns`);
    const { sql, bindings } = spanConflict(table, first);
    for (const chunk of chunks(spanRows(list))) statements.push(insertRows(table, chunk, sql, bindings));
  }

  return { statements, answers };
}

/**
 * Runs a plan's statements in the caller's transaction, sent in one go (none depends on another's
 * answer; they run in the plan's order). Answers the keys the inserts created.
 */
export async function runPlan(trx: Knex.Transaction, plan: OpsPlan): Promise<InsertedKeys> {
  const results = await pipelined(
    trx,
    plan.statements.map((s) => trx.raw(s.sql, s.bindings)),
  );
  const inserted = new Map<string, Set<string>>();
  for (const { table, key, statement } of plan.answers) {
    const keys = inserted.get(table) ?? new Set<string>();
    inserted.set(table, keys);
    for (const r of rowsOf<Record<string, unknown>>(results[statement]))
      if (r.created !== false) keys.add(keyOf(key.map((k) => r[k])));
  }
  return inserted;
}
