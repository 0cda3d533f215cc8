import { pipelined, rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { type InsertedKeys, keyOf, type Row, type RowOp, type Value } from "../ops.ts";
import { type Span, spanConflict, spanRows } from "./spans.ts";

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

/** Which statement (and which part of it, when the plan is one statement) answers a table's keys. */
interface Answer {
  readonly table: string;
  readonly key: readonly string[];
  readonly statement: number;
  /** The part of a combined statement whose rows these are (`combine`); absent otherwise. */
  readonly part?: number;
}

/**
 * Row operations as the statements that apply them (see `planOps`), built before a transaction so
 * that the transaction holds the database only while they run; and which statements answer the
 * keys of which table's inserts.
 */
export interface OpsPlan {
  readonly statements: readonly Planned[];
  readonly answers: readonly Answer[];
}

/**
 * A plan's statements as one, each a data-modifying `with` query of it, when every statement writes a
 * table of its own (a statement may not write a row twice; a table in chunks stays as it is). One
 * statement costs the database one parse, plan and answer instead of one per table (on the embedded
 * database the engine's own work per statement is most of a small batch's), and PostgreSQL one round
 * trip. The outer query reads every part in the plan's order, so rows are locked in that order as
 * before (tables by name); the parts see the same snapshot, as the separate statements did, since
 * none reads what another writes. The answering parts give their rows as JSON (both drivers parse it),
 * the keys as text (uuids, texts and numbers: `keyOf` reads them alike).
 */
function combine(plan: OpsPlan, tables: readonly string[]): OpsPlan {
  if (plan.statements.length < 2 || new Set(tables).size !== tables.length) return plan;
  const answering = new Set(plan.answers.map((a) => a.statement));
  const parts = plan.statements.map((s, i) => `p${i} as (${s.sql}${answering.has(i) ? "" : " returning 1"})`);
  const reads = plan.statements.map((_, i) =>
    answering.has(i)
      ? `select ${i} as part, to_json(p${i}) as row from p${i}`
      : `select ${i} as part, null::json as row from (select count(*) from p${i}) c${i}`,
  );
  return {
    statements: [
      {
        sql: `with ${parts.join(",\n")}\n${reads.join("\nunion all ")}`,
        bindings: plan.statements.flatMap((s) => s.bindings),
      },
    ],
    answers: plan.answers.map((a) => ({ ...a, statement: 0, part: a.statement })),
  };
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
  const tables: string[] = [];
  const answers: Answer[] = [];
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
      tables.push(table);
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
    for (const chunk of chunks(values)) {
      tables.push(table);
      statements.push(insertRows(table, chunk, conflict, bindings));
    }
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
    for (const chunk of chunks(spanRows(list))) {
      tables.push(table);
      statements.push(insertRows(table, chunk, sql, bindings));
    }
  }

  return combine({ statements, answers }, tables);
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
  for (const { table, key, statement, part } of plan.answers) {
    const keys = inserted.get(table) ?? new Set<string>();
    inserted.set(table, keys);
    let rows = rowsOf<Record<string, unknown>>(results[statement]);
    if (part !== undefined)
      rows = rows.flatMap((r) => (r.part === part ? [r.row as Record<string, unknown>] : []));
    for (const r of rows) if (r.created !== false) keys.add(keyOf(key.map((k) => r[k])));
  }
  return inserted;
}
