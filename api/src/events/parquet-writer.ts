// The worker-thread side of a Parquet export (parquet.ts has this thread's side): rows go into a row
// group column by column; every `rowGroup` rows the group is encoded and its bytes posted to the
// thread that answers the HTTP request, which acknowledges each chunk once the response took it.
import { type MessagePort, parentPort } from "node:worker_threads";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { snappyCompressor } from "hysnappy";
import {
  EXPORT_WINDOW,
  type FromExportWorker,
  type Kind,
  parquetSchema,
  type ToExportWorker,
} from "./parquet.ts";

/** A column: its name, its type, and how its value is read from a row. */
export type Column<Row> = readonly [name: string, kind: Kind, read: (row: Row) => unknown];

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
 * driver's strings and numbers die young, and the heap holds typed arrays and a few shared values
 * instead of a value object per row (the worker's heap is capped; what survives a scavenge costs a
 * full collection later). `values` makes what the Parquet writer takes, for one group.
 */
interface ColumnStore {
  push(row: number, v: unknown): void;
  values(rows: number): unknown[];
  reset(): void;
}

/** Numbers (times and counts as numbers; 64-bit integers given back as BigInt) and nulls. */
function numbers(capacity: number, bigint: boolean): ColumnStore {
  const value = new Float64Array(capacity);
  const isNull = new Uint8Array(capacity);
  return {
    push(row, v) {
      isNull[row] = v === null || v === undefined ? 1 : 0;
      if (!isNull[row]) value[row] = Number(v);
    },
    values(rows) {
      const out = new Array<unknown>(rows);
      for (let r = 0; r < rows; r++)
        out[r] = isNull[r] ? null : bigint ? BigInt(value[r] as number) : value[r];
      return out;
    },
    reset() {},
  };
}

/**
 * Text whose values repeat (an arm, a session, an event type): each distinct value encoded to UTF-8
 * once per group (Buffer.from takes small strings from a shared pool), rows as indexes.
 */
function repeatedText(capacity: number): ColumnStore {
  const index = new Int32Array(capacity);
  let seen = new Map<string, number>();
  let distinct: Uint8Array[] = [];
  return {
    push(row, v) {
      if (typeof v !== "string") {
        index[row] = -1;
        return;
      }
      let i = seen.get(v);
      if (i === undefined) {
        i = distinct.push(Buffer.from(v)) - 1;
        seen.set(v, i);
      }
      index[row] = i;
    },
    values(rows) {
      const out = new Array<unknown>(rows);
      for (let r = 0; r < rows; r++) out[r] = (index[r] as number) < 0 ? null : distinct[index[r] as number];
      return out;
    },
    reset() {
      seen = new Map();
      distinct = [];
    },
  };
}

/** Text whose values do not repeat (ids, JSON): UTF-8 in one growing buffer, rows as offsets. */
function uniqueText(capacity: number): ColumnStore {
  let bytes = Buffer.allocUnsafe(1 << 20);
  let used = 0;
  const start = new Int32Array(capacity);
  const length = new Int32Array(capacity);
  return {
    push(row, v) {
      if (typeof v !== "string") {
        length[row] = -1;
        return;
      }
      const most = v.length * 3;
      if (used + most > bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + most));
        bytes.copy(grown, 0, 0, used);
        bytes = grown;
      }
      start[row] = used;
      length[row] = bytes.write(v, used);
      used += length[row] as number;
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

/** Rows in, Parquet bytes out: `add` answers the bytes of the row groups it completed (often none). */
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
  const stores = columns.map(([, kind], i): ColumnStore => {
    if (kind === "string" && !unique[i]) return repeatedText(rowGroup);
    if (kind === "string" || kind === "json") return uniqueText(rowGroup);
    return numbers(rowGroup, kind === "timestamp" || kind === "int64");
  });
  let rows = 0;
  /** Characters of text in the group so far: a group is written early when it holds much text. */
  let chars = 0;

  /** What the writer holds since the last call, handed over (the writer keeps counting offsets). */
  function take(): ArrayBuffer {
    const bytes = writer.buffer.slice(0, writer.index);
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
    rows = 0;
    chars = 0;
  }

  return {
    add(page: readonly Row[]): ArrayBuffer | null {
      for (const row of page) {
        for (let i = 0; i < readers.length; i++) {
          const v = (readers[i] as (row: Row) => unknown)(row);
          if (typeof v === "string") chars += v.length;
          (stores[i] as ColumnStore).push(rows, v);
        }
        if (++rows >= rowGroup || chars >= MAX_GROUP_CHARS) writeGroup();
      }
      return writer.index > 0 ? take() : null;
    },
    finish(): ArrayBuffer {
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

/**
 * Runs a worker's export: writes `pages` as Parquet and posts the bytes to the parent thread, at most
 * EXPORT_WINDOW chunks ahead of what the client has taken.
 */
export async function postParquet<Row>(pages: AsyncIterable<readonly Row[]>, options: ParquetOptions<Row>) {
  const port = parentPort as MessagePort;
  let unanswered = 0;
  let answered: (() => void) | null = null;
  port.on("message", (m: ToExportWorker) => {
    if (!m.written) return;
    unanswered--;
    answered?.();
    answered = null;
  });
  const post = async (bytes: ArrayBuffer) => {
    while (unanswered >= EXPORT_WINDOW) await new Promise<void>((resolve) => (answered = resolve));
    unanswered++;
    port.postMessage({ bytes } satisfies FromExportWorker, [bytes]);
  };
  try {
    const writer = rowGroupWriter(options);
    for await (const page of pages) {
      const bytes = writer.add(page);
      if (bytes) await post(bytes);
    }
    await post(writer.finish());
    port.postMessage({ done: true } satisfies FromExportWorker);
  } catch (err) {
    port.postMessage({ error: String((err as Error)?.message ?? err) } satisfies FromExportWorker);
  }
}
