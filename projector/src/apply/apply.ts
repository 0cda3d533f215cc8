import type { LogRecord } from "@feedlab/ingest";
import { erasedAmongStatement, erasedOf, eventOf, LOG_HEADERS } from "@feedlab/ingest";
import type { LoggedEvent } from "@feedlab/schemas";
import { pipelined, rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { ERASE_LOCK } from "./erase.ts";
import { type InsertedKeys, keyOf, type LogPlace, type Row, type RowOp, type Value } from "./ops.ts";
import type { Projection } from "./read-model.ts";
import { eventsProjection, firstPlaces, placeKey } from "./read-models/index.ts";

// How a batch of log records becomes rows: decode each record, let the events store gate first
// copies, ask every projection for its row operations (then its settle step), and write the
// operations as a few multi-row statements. The live projector and replay both apply through here.

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

export interface DeadLetter {
  readonly place: LogPlace;
  readonly eventId: string | null;
  readonly reason: string;
  /** The record as the log holds it (on Kafka still encrypted: erasure reaches it there too). */
  readonly value: Uint8Array | null;
  /** The record's key (the session id) and headers. */
  readonly key: string | null;
  readonly headers: Readonly<Record<string, string>> | null;
}

/**
 * A dead letter of a log record, keeping the record as the log holds it; its event id where the log
 * decoded the record or named the event in a header.
 */
export function deadLetterOf(r: LogRecord, reason: string): DeadLetter {
  return {
    place: { partition: r.partition, offset: r.offset },
    eventId: r.event?.event_id ?? r.original?.headers[LOG_HEADERS.eventId] ?? null,
    reason,
    value: r.original?.value ?? r.value,
    key: r.original?.key ?? null,
    headers: r.original?.headers ?? null,
  };
}

/**
 * True for a transaction the database aborted because of a concurrent one (SQLSTATE 40P01 deadlock,
 * 40001 serialization failure): the same work succeeds when tried again.
 */
export function isConcurrencyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

/** True for database errors caused by the data (SQLSTATE classes 22, 23, 42), not by the infrastructure. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|23|42)/.test(code);
}

/** What applying records did: how many applied, the dead letters, and the events applied. */
export interface Applied {
  readonly applied: number;
  readonly dead: DeadLetter[];
  /** The events the projections applied (first copies; not repeats, erased or dead records). */
  readonly events: LoggedEvent[];
}

/** A record decoded, with its place in the log. */
interface Decoded {
  readonly event: LoggedEvent;
  readonly place: LogPlace;
}

/**
 * A batch made ready before its transaction: the records decoded (undecodable ones as dead letters)
 * and the statements of the events store and of the other projections for every decoded record, the
 * common case (no record repeated, applied before, or of an erased participant). `applyRecords`
 * builds again only what a different case changes.
 */
export interface PreparedBatch {
  readonly records: readonly LogRecord[];
  readonly decoded: readonly Decoded[];
  readonly dead: readonly DeadLetter[];
  readonly eventsPlan: OpsPlan | null;
  readonly othersPlan: OpsPlan | null;
}

/** Decodes `records` and builds their statements (no database). */
export function prepareBatch(
  records: readonly LogRecord[],
  projections: readonly Projection[],
): PreparedBatch {
  const decoded: Decoded[] = [];
  const dead: DeadLetter[] = [];
  for (const r of records) {
    // A record of an erased participant that the log could not delete (Kafka: its key is gone).
    if (r.erased) continue;
    try {
      decoded.push({
        event: eventOf(r),
        place: { partition: r.partition, offset: r.offset },
      });
    } catch (err) {
      dead.push(deadLetterOf(r, `undecodable record: ${(err as Error).message}`));
    }
  }
  const others = projections.filter((p) => p !== eventsProjection);
  return {
    records,
    decoded,
    dead,
    eventsPlan: projections.includes(eventsProjection) ? planOps(eventsOps(decoded)) : null,
    othersPlan: others.length > 0 ? planOps(othersOps(decoded, others)) : null,
  };
}

const eventsOps = (decoded: readonly Decoded[]) =>
  decoded.flatMap((d) => eventsProjection.project(d.event, d.place));
const othersOps = (decoded: readonly Decoded[], others: readonly Projection[]) =>
  decoded.flatMap((d) => others.flatMap((p) => p.project(d.event, d.place)));

/**
 * Applies decoded records to the given projections inside the caller's transaction. The events
 * store goes first; every other projection applies an event only where the events store recorded
 * its first copy, so repeated records and replays never count twice. Then the projections' settle
 * steps run, in order, on what the row operations made. Undecodable records become dead letters.
 * `prepared` (of the same records and projections) saves building the statements here.
 */
export async function applyRecords(
  trx: Knex.Transaction,
  records: readonly LogRecord[],
  projections: readonly Projection[],
  consumer: string,
  prepared?: PreparedBatch,
): Promise<Applied> {
  const batch = prepared?.records === records ? prepared : prepareBatch(records, projections);
  const { dead } = batch;
  let { decoded, eventsPlan, othersPlan } = batch;
  // Erasures wait for this batch, and this batch leaves out whoever an erasure before it took away.
  // (Both statements in one round trip; the lock is taken first.)
  const [, answer] = await pipelined(trx, [
    trx.raw("select pg_advisory_xact_lock_shared(?)", [ERASE_LOCK]),
    erasedAmongStatement(trx, [...new Set(decoded.map((d) => d.event.user_id))]),
  ]);
  const erased = erasedOf(answer);
  if (erased.size > 0) {
    decoded = decoded.filter((d) => !erased.has(d.event.user_id));
    eventsPlan = eventsPlan && planOps(eventsOps(decoded));
    othersPlan = null;
  }
  const others = projections.filter((p) => p !== eventsProjection);
  let fresh = decoded;
  if (eventsPlan) {
    // Live (and full replay): the events rows this batch created are the first copies.
    const inserted = await runPlan(trx, eventsPlan);
    const created = new Set(inserted.get("events") ?? []);
    fresh = decoded.filter((d) => created.delete(d.event.event_id));
  } else if (others.length > 0 && decoded.length > 0) {
    // Partial replay: the events store is intact; apply where it recorded the first copy.
    const first = await firstPlaces(trx, [...new Set(decoded.map((d) => d.event.event_id))]);
    fresh = decoded.filter(
      (d) => first.get(d.event.event_id) === placeKey(d.place.partition, d.place.offset),
    );
  }
  if (others.length > 0 && fresh.length > 0) {
    // The prepared statements hold every decoded record: they serve when all of them are first copies.
    const plan =
      othersPlan && fresh.length === batch.decoded.length ? othersPlan : planOps(othersOps(fresh, others));
    const inserted = await runPlan(trx, plan);
    const events = fresh.map((d) => d.event);
    for (const p of others) {
      if (p.settle) await applyOps(trx, await p.settle({ sql: trx, events, inserted }));
    }
  }
  const applied = fresh.length;
  await recordDeadLetters(trx, consumer, dead);
  return { applied, dead: [...dead], events: fresh.map((d) => d.event) };
}

export async function recordDeadLetters(
  trx: Knex.Transaction,
  consumer: string,
  dead: readonly DeadLetter[],
): Promise<void> {
  if (dead.length === 0) return;
  await trx("dead_letters")
    .insert(
      dead.map((d) => ({
        consumer,
        partition: d.place.partition,
        log_offset: d.place.offset,
        event_id: d.eventId,
        reason: d.reason.slice(0, 2000),
        record: d.value ? Buffer.from(d.value) : null,
        record_key: d.key,
        record_headers: d.headers ? JSON.stringify(d.headers) : null,
      })),
    )
    .onConflict(["consumer", "partition", "log_offset"])
    .ignore();
}

/**
 * Applies records one at a time, each in a savepoint: a record whose data the database refuses goes
 * to the dead letters (`cannot apply: ...`) and the others apply. What the live projector and replay
 * fall back to when a whole batch failed on bad data, and how a dead letter is re-driven.
 */
export async function applyOneByOne(
  trx: Knex.Transaction,
  records: readonly LogRecord[],
  projections: readonly Projection[],
  consumer: string,
  onRefused?: (record: LogRecord, err: unknown) => void,
): Promise<Applied> {
  let applied = 0;
  const dead: DeadLetter[] = [];
  const events: LoggedEvent[] = [];
  for (const record of records) {
    try {
      const r = await trx.transaction((sp) => applyRecords(sp, [record], projections, consumer));
      applied += r.applied;
      dead.push(...r.dead);
      events.push(...r.events);
    } catch (err) {
      if (!isDataError(err)) throw err;
      const letter = deadLetterOf(record, `cannot apply: ${(err as Error).message}`);
      await recordDeadLetters(trx, consumer, [letter]);
      dead.push(letter);
      onRefused?.(record, err);
    }
  }
  return { applied, dead, events };
}
