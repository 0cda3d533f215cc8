import { PassThrough, type Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import type { ParquetWriter } from "hyparquet-writer";

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

/** A column of the Parquet export: its name and how it is typed. */
export type Kind = "string" | "json" | "timestamp" | "double" | "int32" | "int64";

const LEAF: Record<Kind, Omit<SchemaElement, "name">> = {
  string: { type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } },
  // JSON text as it is: the writer would encode it again if the schema said JSON while writing (see
  // parquet.worker.ts), so the converted type is set for the footer only.
  json: { type: "BYTE_ARRAY", logical_type: { type: "JSON" } },
  // Instants in UTC, milliseconds: pandas reads datetime64[ms, UTC], duckdb TIMESTAMP WITH TIME ZONE.
  timestamp: { type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } },
  double: { type: "DOUBLE" },
  int32: { type: "INT32" },
  int64: { type: "INT64" },
};

/** The columns of a Parquet file and how to write them. */
export interface ParquetColumns {
  readonly columns: readonly (readonly [name: string, kind: Kind])[];
  /** Columns without min/max statistics (values no reader filters on by range). */
  readonly noStatistics: readonly string[];
  /** Columns whose values never repeat: written plain, without trying a dictionary. */
  readonly plain: readonly string[];
}

/** The Parquet schema of columns (every column optional: nulls are kept as nulls). */
export function parquetSchema(columns: readonly (readonly [string, Kind])[]): SchemaElement[] {
  return [
    { name: "root", num_children: columns.length },
    ...columns.map(([name, kind]) => ({ name, repetition_type: "OPTIONAL" as const, ...LEAF[kind] })),
  ];
}

/** Pages handed to the encoder and not yet answered, at most. */
const IN_FLIGHT = 10;

/** Rows per row group: about 1.3 MB of encoded events. */
const ROW_GROUP = 10_000;

/**
 * Streams rows as a Parquet file. `pages` yields rows in order; each page goes to a worker thread
 * (parquet.worker.ts) as columns while the next one is read; every 10,000 rows the worker encodes a
 * row group, and its bytes are written out before more is read when the client is slower than the
 * export (backpressure). The event loop that serves participants only reads and hands over, and
 * holds a page at a time; the encoder's heap is the worker's, kept small by a resource limit.
 */
export function parquetStream<Row>(
  options: Omit<ParquetColumns, "columns"> & {
    /** Each column's name, type, and how its value is read from a row. */
    columns: readonly (readonly [name: string, kind: Kind, read: (row: Row) => unknown])[];
    pages: AsyncIterable<readonly Row[]>;
    createdBy: string;
    rowGroup?: number;
  },
): Readable {
  const { pages } = options;
  const rowGroup = options.rowGroup ?? ROW_GROUP;
  const readers = options.columns.map(([, , read]) => read);
  const out = new PassThrough();
  const worker = new Worker(new URL("./parquet.worker.ts", import.meta.url), {
    workerData: {
      columns: options.columns.map(([name, kind]) => [name, kind]),
      noStatistics: options.noStatistics,
      plain: options.plain,
      createdBy: options.createdBy,
      rowGroup,
    },
    // A small heap makes the encoder collect its garbage early instead of growing.
    resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4 },
  });
  let closed = false;
  out.on("close", () => {
    closed = true;
    void worker.terminate();
  });

  // Replies in order: the bytes written since the previous message (often none), per message sent.
  const waiting: { resolve: (bytes: ArrayBuffer) => void; reject: (e: Error) => void }[] = [];
  let failure: Error | null = null;
  const fail = (err: Error) => {
    failure ??= err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  worker.on("message", (m: { bytes?: ArrayBuffer; error?: string }) => {
    if (m.error !== undefined) fail(new Error(`Parquet encoding failed: ${m.error}`));
    else if (m.bytes) waiting.shift()?.resolve(m.bytes);
  });
  worker.on("error", fail);
  worker.on("exit", (code) => {
    if (!closed && code !== 0) fail(new Error(`the Parquet encoder stopped (exit code ${code})`));
  });
  const send = (message: { page?: unknown[][]; end?: boolean }): Promise<ArrayBuffer> => {
    const reply = new Promise<ArrayBuffer>((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ resolve, reject });
      worker.postMessage(message);
    });
    // Replies are awaited in order; one that fails while an earlier one is awaited must not count as
    // an unhandled rejection (the earlier one reports the failure).
    reply.catch(() => {});
    return reply;
  };
  const write = async (bytes: ArrayBuffer) => {
    if (bytes.byteLength > 0 && !out.write(Buffer.from(bytes)))
      await new Promise<void>((resolve) => {
        out.once("drain", resolve);
        out.once("close", resolve);
      });
  };

  void (async () => {
    // A few pages in the worker while the next is read (it encodes a row group now and then);
    // the oldest page's bytes are written before another is sent.
    const inWorker: Promise<ArrayBuffer>[] = [];
    try {
      for await (const page of readAhead(pages)) {
        if (closed) return;
        const columnar = readers.map((read) => page.map(read));
        if (inWorker.length >= IN_FLIGHT) await write(await (inWorker.shift() as Promise<ArrayBuffer>));
        inWorker.push(send({ page: columnar }));
      }
      for (const bytes of inWorker.splice(0)) await write(await bytes);
      await write(await send({ end: true }));
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    } finally {
      void worker.terminate();
    }
  })();
  return out;
}

/**
 * The pages of `source`, asking for the next one before handing out the current: the database
 * prepares page n + 1 (in its own process, or PGlite's worker) while page n is handled here.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  for (;;) {
    const current = await next;
    if (current.done) return;
    next = it.next();
    // A failure of the page read ahead surfaces when it is awaited; until then it must not count as
    // unhandled.
    next.catch(() => {});
    yield current.value;
  }
}
