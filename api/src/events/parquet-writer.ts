// The worker-thread side of a Parquet export (parquet.ts has this thread's side): rows go into a row
// group column by column; every `rowGroup` rows the group is encoded and its bytes posted to the
// thread that answers the HTTP request, which acknowledges each chunk once the response took it.
import { type MessagePort, parentPort } from "node:worker_threads";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { snappyCompressor } from "hysnappy";
import { type CopyTuple, float8At, int4At, int8At } from "./copy-binary.ts";
import {
  EXPORT_CHUNK,
  EXPORT_WINDOW,
  type FromExportWorker,
  type Kind,
  parquetSchema,
  type ToExportWorker,
} from "./parquet.ts";

/**
 * A column: its name, its type, how its value is read from a row, and where it lies in a binary COPY
 * tuple (a field, decoded as the kind says: text, int8 for times and int64, float8, int4), or how it
 * is derived from the tuple.
 */
export type Column<Row> = readonly [
  name: string,
  kind: Kind,
  read: (row: Row) => unknown,
  fromCopy: number | ((tuple: CopyTuple) => string | number | null),
];

export interface ParquetOptions<Row> {
  readonly columns: readonly Column<Row>[];
  /** Columns without min/max statistics (values no reader filters on by range). */
  readonly noStatistics: readonly string[];
  /** Columns whose values never repeat: written plain, without trying a dictionary. */
  readonly plain: readonly string[];
  readonly createdBy: string;
  /** Rows per row group. */
  readonly rowGroup: number;
}

/** About 16 MB of text per row group at most (events with large payloads), whatever the rows. */
const MAX_GROUP_CHARS = 16 * 1024 * 1024;

/**
 * A column's values until its row group is written, kept off the JavaScript heap's objects: the
 * heap holds typed arrays and a few shared values instead of a value object per row (the worker's
 * heap is capped; what survives a scavenge costs a full collection later). Values come from a row
 * (`push`) or from a binary COPY tuple (`pushField`, with no string or number made on the way).
 * `values` makes what the Parquet writer takes, for one group.
 */
interface ColumnStore {
  push(row: number, v: unknown): void;
  pushField(row: number, tuple: CopyTuple, field: number): void;
  values(rows: number): unknown[];
  reset(): void;
}

/**
 * Numbers (times and counts as numbers; 64-bit integers given back as BigInt), booleans (kept as 0
 * and 1, given back as booleans) and nulls.
 */
function numbers(capacity: number, kind: Kind): ColumnStore {
  const value = new Float64Array(capacity);
  const isNull = new Uint8Array(capacity);
  const bigint = kind === "timestamp" || kind === "int64";
  const boolean = kind === "boolean";
  const decode = bigint ? int8At : kind === "int32" ? int4At : float8At;
  const store: ColumnStore = {
    push(row, v) {
      isNull[row] = v === null || v === undefined ? 1 : 0;
      if (!isNull[row]) value[row] = Number(v);
    },
    pushField(row, tuple, field) {
      store.push(row, decode(tuple, field));
    },
    values(rows) {
      const out = new Array<unknown>(rows);
      for (let r = 0; r < rows; r++)
        out[r] = isNull[r] ? null : bigint ? BigInt(value[r] as number) : boolean ? value[r] === 1 : value[r];
      return out;
    },
    reset() {},
  };
  return store;
}

/**
 * Text whose values repeat (an arm, a session, an event type): each distinct value encoded to UTF-8
 * once per group, rows as indexes.
 */
function repeatedText(capacity: number): ColumnStore {
  const index = new Int32Array(capacity);
  let seen = new Map<string, number>();
  let distinct: Uint8Array[] = [];
  // The last value and its index: many columns repeat from row to row (a study's arms and layouts),
  // and comparing two short strings (or byte ranges) costs less than hashing a new one for the map.
  let last: string | null = null;
  let lastIndex = -1;
  return {
    push(row, v) {
      if (typeof v !== "string") {
        index[row] = -1;
        return;
      }
      if (v === last) {
        index[row] = lastIndex;
        return;
      }
      let i = seen.get(v);
      if (i === undefined) {
        // Buffer.from takes small strings from a shared pool.
        i = distinct.push(Buffer.from(v)) - 1;
        seen.set(v, i);
      }
      index[row] = i;
      last = v;
      lastIndex = i;
    },
    pushField(row, { bytes, start, length }, field) {
      const n = length[field] as number;
      if (n < 0) {
        index[row] = -1;
        return;
      }
      const at = start[field] as number;
      const previous = lastIndex < 0 ? null : (distinct[lastIndex] as Uint8Array);
      if (previous?.length === n) {
        let same = true;
        for (let b = 0; b < n; b++)
          if (previous[b] !== bytes[at + b]) {
            same = false;
            break;
          }
        if (same) {
          index[row] = lastIndex;
          return;
        }
      }
      // The bytes as a one-byte string: a key of the map, whatever the encoding (one char per byte).
      const key = bytes.toString("latin1", at, at + n);
      let i = seen.get(key);
      if (i === undefined) {
        // A copy (small ones share the Buffer pool's slabs): the tuple's bytes are read once.
        const value = Buffer.allocUnsafe(n);
        bytes.copy(value, 0, at, at + n);
        i = distinct.push(value) - 1;
        seen.set(key, i);
      }
      index[row] = i;
      last = null;
      lastIndex = i;
    },
    values(rows) {
      const out = new Array<unknown>(rows);
      for (let r = 0; r < rows; r++) out[r] = (index[r] as number) < 0 ? null : distinct[index[r] as number];
      return out;
    },
    reset() {
      seen = new Map();
      distinct = [];
      last = null;
      lastIndex = -1;
    },
  };
}

/** Text whose values do not repeat (ids, JSON): UTF-8 in one growing buffer, rows as offsets. */
function uniqueText(capacity: number): ColumnStore {
  let bytes = Buffer.allocUnsafe(1 << 20);
  let used = 0;
  const start = new Int32Array(capacity);
  const length = new Int32Array(capacity);
  const room = (most: number) => {
    if (used + most <= bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + most));
    bytes.copy(grown, 0, 0, used);
    bytes = grown;
  };
  return {
    push(row, v) {
      if (typeof v !== "string") {
        length[row] = -1;
        return;
      }
      room(v.length * 3);
      start[row] = used;
      length[row] = bytes.write(v, used);
      used += length[row] as number;
    },
    pushField(row, tuple, field) {
      const n = tuple.length[field] as number;
      if (n < 0) {
        length[row] = -1;
        return;
      }
      room(n);
      const at = tuple.start[field] as number;
      tuple.bytes.copy(bytes, used, at, at + n);
      start[row] = used;
      length[row] = n;
      used += n;
    },
    values(rows) {
      const out = new Array<unknown>(rows);
      for (let r = 0; r < rows; r++)
        out[r] =
          (length[r] as number) < 0
            ? null
            : bytes.subarray(start[r], (start[r] as number) + (length[r] as number));
      return out;
    },
    reset() {
      used = 0;
      // A buffer grown for a group of large payloads is not kept for the next groups.
      if (bytes.length > 1 << 22) bytes = Buffer.allocUnsafe(1 << 20);
    },
  };
}

/**
 * Rows in, Parquet bytes out. Rows come as objects (`add`) or as binary COPY tuples (`addTuple`);
 * `flush` answers the bytes of the row groups completed since the last call (often none).
 */
export function rowGroupWriter<Row>(options: ParquetOptions<Row>) {
  const { columns, rowGroup } = options;
  const writer = new ByteWriter(1 << 20);
  // Snappy (the format's usual codec) in WebAssembly (hysnappy, by the writer's authors). One instance
  // for the export: `snappyCompress` would instantiate the module, with its memory, for every page.
  const parquet = new ParquetWriter({
    writer,
    schema: parquetSchema(columns.map(([name, kind]) => [name, kind])),
    createdBy: options.createdBy,
    compressors: { SNAPPY: snappyCompressor() },
  });
  const unique = columns.map(([name]) => options.plain.includes(name));
  const readers = columns.map(([, , read]) => read);
  const fields = columns.map(([, , , fromCopy]) => fromCopy);
  const stores = columns.map(([, kind], i): ColumnStore => {
    if (kind === "string" && !unique[i]) return repeatedText(rowGroup);
    if (kind === "string" || kind === "json") return uniqueText(rowGroup);
    return numbers(rowGroup, kind);
  });
  let rows = 0;
  /** Rows added since the start. */
  let total = 0;
  /** Characters (or bytes) of text in the group so far: a group is written early when it holds much text. */
  let chars = 0;

  /**
   * What the writer holds since the last call (the writer keeps counting offsets): a view of its
   * buffer, valid until the next call that adds rows.
   */
  function take(): Uint8Array {
    const bytes = new Uint8Array(writer.buffer, 0, writer.index);
    writer.index = 0;
    return bytes;
  }

  function writeGroup(): void {
    if (rows === 0) return;
    void parquet.write({
      // Statistics (min and max per row group) help readers skip data; of ids and JSON they do not.
      columnData: columns.map(([name, kind], i) => ({
        name,
        data: (stores[i] as ColumnStore).values(rows),
        statistics: kind !== "json" && !options.noStatistics.includes(name),
        ...(unique[i] ? { encoding: "PLAIN" as const } : {}),
        // Dictionary-encoded text gains little from compression; ids and JSON do.
        ...(kind === "string" && !unique[i] ? { codec: "UNCOMPRESSED" as const } : {}),
      })),
      rowGroupSize: rows,
    });
    for (const store of stores) store.reset();
    total += rows;
    rows = 0;
    chars = 0;
  }

  const flush = (): Uint8Array | null => (writer.index > 0 ? take() : null);

  return {
    /** Rows as objects; answers what `flush` would. */
    add(page: readonly Row[]): Uint8Array | null {
      for (const row of page) {
        for (let i = 0; i < readers.length; i++) {
          const v = (readers[i] as (row: Row) => unknown)(row);
          if (typeof v === "string") chars += v.length;
          (stores[i] as ColumnStore).push(rows, v);
        }
        if (++rows >= rowGroup || chars >= MAX_GROUP_CHARS) writeGroup();
      }
      return flush();
    },
    /** A row as a binary COPY tuple (copy-binary.ts), read during the call. */
    addTuple(tuple: CopyTuple): void {
      for (let i = 0; i < fields.length; i++) {
        const from = fields[i] as Column<Row>[3];
        const store = stores[i] as ColumnStore;
        if (typeof from === "number") {
          store.pushField(rows, tuple, from);
          chars += Math.max(0, tuple.length[from] as number);
        } else store.push(rows, from(tuple));
      }
      if (++rows >= rowGroup || chars >= MAX_GROUP_CHARS) writeGroup();
    },
    flush,
    /** Rows written into row groups so far (all of them once `finish` has run). */
    get rows() {
      return total;
    },
    /** The last row group and the footer: a view, as `flush` gives. */
    finish(): Uint8Array {
      writeGroup();
      // The footer's schema says which columns hold JSON (readers such as DuckDB go by the converted
      // type); the row groups were written from the text as it came, which the writer would
      // otherwise have encoded as JSON again.
      for (const element of parquet.schema)
        if (element.logical_type?.type === "JSON") element.converted_type = "JSON";
      void parquet.finish();
      return take();
    },
  };
}

export type RowGroupWriter<Row> = ReturnType<typeof rowGroupWriter<Row>>;

/**
 * Runs a worker's export: `write` fills the writer and hands the bytes to `out`, which posts them
 * to the parent thread, at most EXPORT_WINDOW chunks ahead of what the client has taken.
 *
 * The chunks travel in buffers that the parent thread sends back once the socket has written them,
 * and this thread fills them again. A buffer made per chunk would die in the parent thread, which
 * allocates little during an export: its garbage collector ran seldom, and tens of MB of written
 * chunks stayed resident until it did.
 */
export async function postParquet<Row>(
  options: ParquetOptions<Row>,
  write: (writer: RowGroupWriter<Row>, out: (bytes: Uint8Array) => Promise<void>) => Promise<void>,
) {
  const port = parentPort as MessagePort;
  const free: ArrayBuffer[] = [];
  let unanswered = 0;
  let answered: (() => void) | null = null;
  port.on("message", (m: ToExportWorker) => {
    if (!m.written) return;
    unanswered--;
    free.push(m.bytes);
    answered?.();
    answered = null;
  });
  /** Posts `bytes` in chunks of EXPORT_CHUNK at most, each in a free buffer or a new one. */
  const post = async (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.byteLength; at += EXPORT_CHUNK) {
      while (unanswered >= EXPORT_WINDOW) await new Promise<void>((resolve) => (answered = resolve));
      unanswered++;
      const chunk = bytes.subarray(at, at + EXPORT_CHUNK);
      const buffer = free.pop() ?? new ArrayBuffer(EXPORT_CHUNK);
      new Uint8Array(buffer).set(chunk);
      port.postMessage({ bytes: buffer, length: chunk.byteLength } satisfies FromExportWorker, [buffer]);
    }
  };
  try {
    await write(rowGroupWriter(options), post);
    port.postMessage({ done: true } satisfies FromExportWorker);
  } catch (err) {
    port.postMessage({ error: String((err as Error)?.message ?? err) } satisfies FromExportWorker);
  }
}
