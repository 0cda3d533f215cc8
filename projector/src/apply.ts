import type { Knex } from "knex";
import type { Row, RowOp, Value } from "./ops.ts";

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
  trx: Knex.Transaction,
  table: string,
  rows: readonly Row[],
  conflict: string,
  conflictBindings: readonly Knex.RawBinding[],
) {
  const columns = Object.keys(rows[0] ?? {});
  const list = columns.map(() => "??").join(", ");
  return trx.raw(
    `insert into ?? (${list}) select ${list} from json_populate_recordset(null::??, ?::json) ${conflict}`,
    [table, ...columns, ...columns, table, rowsJson(rows, columns), ...conflictBindings],
  );
}

/**
 * Rows of a `raw` result; pg and PGlite both answer `{ rows }`. The same as api/src/db/db.ts's
 * `rowsOf`, which this workspace cannot import (the api depends on it, not the other way round).
 */
function rowsOf<T>(result: unknown): T[] {
  const rows = (result as { rows?: T[] }).rows;
  return Array.isArray(rows) ? rows : [];
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
 * table and chunk, existing keys kept), then accumulations (one upsert per table and chunk), then
 * co-views of the watched rows this batch created.
 */
export async function applyOps(trx: Knex.Transaction, ops: readonly RowOp[]): Promise<InsertedKeys> {
  const inserts = new Map<string, { key: readonly string[]; rows: Row[] }>();
  const accumulates = new Map<string, Accumulate[]>();
  const coviews: Extract<RowOp, { kind: "coview" }>[] = [];
  for (const op of ops) {
    switch (op.kind) {
      case "insert": {
        const entry = inserts.get(op.table) ?? { key: op.key, rows: [] };
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
      case "coview":
        coviews.push(op);
        break;
      default: {
        const never: never = op;
        throw new Error(`unknown row op ${JSON.stringify(never)}`);
      }
    }
  }

  const inserted = new Map<string, Set<string>>();
  for (const [table, { key, rows }] of inserts) {
    const keys = new Set<string>();
    const keyList = key.map(() => "??").join(", ");
    for (const chunk of chunks(rows)) {
      const returned = rowsOf<Record<string, unknown>>(
        await insertRows(trx, table, chunk, `on conflict (${keyList}) do nothing returning ${keyList}`, [
          ...key,
          ...key,
        ]),
      );
      for (const r of returned) keys.add(key.map((k) => String(r[k])).join("\u0000"));
    }
    inserted.set(table, keys);
  }

  for (const [table, list] of accumulates) {
    // In key order: concurrent batches (other partitions, other projectors) then lock shared rows in
    // the same order, so they wait for each other instead of deadlocking.
    const rows = [...accumulate(list)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
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
    merge(Object.keys(first.add), "??.?? + excluded.??");
    merge(Object.keys(first.max), "greatest(??.??, excluded.??)");
    merge(Object.keys(first.min), "least(??.??, excluded.??)");
    const target = keyCols.map(() => "??").join(", ");
    const conflict =
      sets.length > 0
        ? `on conflict (${target}) do update set ${sets.join(", ")}`
        : `on conflict (${target}) do nothing`;
    const values = rows.map((r) => ({ ...r.init, ...r.key, ...r.add, ...r.max, ...r.min }));
    for (const chunk of chunks(values)) await insertRows(trx, table, chunk, conflict, bindings);
  }

  if (coviews.length > 0) await applyCoviews(trx, coviews, inserted.get("watched_videos") ?? new Set());
  return inserted;
}

/** Per table, the keys (columns joined by NUL) that an `insert` op actually created. */
export type InsertedKeys = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Co-views of first watches: each new (user, video) pairs with every video the user watched before
 * it, including ones new earlier in the same batch, so each pair counts once per participant.
 */
async function applyCoviews(
  trx: Knex.Transaction,
  ops: readonly Extract<RowOp, { kind: "coview" }>[],
  newWatched: ReadonlySet<string>,
): Promise<void> {
  const seen = new Set<string>();
  const fresh = ops.filter((op) => {
    const key = `${op.user_id}\u0000${op.video_id}`;
    if (!newWatched.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (fresh.length === 0) return;
  const users = [...new Set(fresh.map((op) => op.user_id))];
  const watched = (await trx("watched_videos").whereIn("user_id", users).select("user_id", "video_id")) as {
    user_id: string;
    video_id: string;
  }[];
  const freshKeys = new Set(fresh.map((op) => `${op.user_id}\u0000${op.video_id}`));
  const before = new Map<string, string[]>();
  for (const w of watched) {
    if (freshKeys.has(`${w.user_id}\u0000${w.video_id}`)) continue;
    const list = before.get(w.user_id) ?? [];
    list.push(w.video_id);
    before.set(w.user_id, list);
  }
  const pairs: Extract<RowOp, { kind: "accumulate" }>[] = [];
  for (const op of fresh) {
    const prior = before.get(op.user_id) ?? [];
    for (const other of prior) {
      if (other === op.video_id) continue;
      const [a, b] = other < op.video_id ? [other, op.video_id] : [op.video_id, other];
      pairs.push({
        kind: "accumulate",
        table: "co_views",
        key: { experiment_id: op.experiment_id, video_a: a, video_b: b },
        add: { count: 1 },
      });
    }
    prior.push(op.video_id);
    before.set(op.user_id, prior);
  }
  if (pairs.length > 0) await applyOps(trx, pairs);
}
