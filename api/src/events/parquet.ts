import { PassThrough, type Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import type { ParquetWriter } from "hyparquet-writer";

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

/** A column of a Parquet export: its name and how it is typed. */
export type Kind = "string" | "json" | "timestamp" | "double" | "int32" | "int64";

const LEAF: Record<Kind, Omit<SchemaElement, "name">> = {
  string: { type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } },
  // JSON text as it is: the writer would encode it again if the schema said JSON while writing (see
  // parquet-writer.ts), so the converted type is set for the footer only.
  json: { type: "BYTE_ARRAY", logical_type: { type: "JSON" } },
  // Instants in UTC, milliseconds: pandas reads datetime64[ms, UTC], duckdb TIMESTAMP WITH TIME ZONE.
  timestamp: { type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } },
  double: { type: "DOUBLE" },
  int32: { type: "INT32" },
  int64: { type: "INT64" },
};

/** The Parquet schema of columns (every column optional: nulls are kept as nulls). */
export function parquetSchema(columns: readonly (readonly [string, Kind])[]): SchemaElement[] {
  return [
    { name: "root", num_children: columns.length },
    ...columns.map(([name, kind]) => ({ name, repetition_type: "OPTIONAL" as const, ...LEAF[kind] })),
  ];
}

/**
 * What a Parquet export's worker and this thread say to each other. The worker posts the file's
 * bytes a chunk at a time (`bytes`, transferred), then `done`, or `error`; this thread answers each
 * chunk with `written` once the response has taken it, and the worker keeps at most EXPORT_WINDOW
 * chunks unanswered (backpressure: a slow client pauses the database reads).
 */
export type FromExportWorker = { bytes: ArrayBuffer } | { done: true } | { error: string };
export type ToExportWorker = { written: true };

/** Chunks (row groups, about 1-2 MB each) the export worker may have in flight to the client. */
export const EXPORT_WINDOW = 2;

/**
 * The export worker's heap: small, so that it collects early instead of growing (the worker keeps a
 * row group in typed arrays off the heap, and its pages are small enough to die young). In single runs
 * with 1M events on 2026-11-25, 16 MB ran out of memory, 24 MB was slower, and 48 or 64 MB were no
 * faster and peaked higher (README, "Results and exports").
 */
export const EXPORT_HEAP = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } as const;

let running = 0;
/** Parquet exports whose worker is running in this process (a metric: each holds its own heap). */
export const runningExports = () => running;

/**
 * Streams the Parquet file a worker thread makes (`workerUrl`, given `workerData`): the worker reads
 * the rows from the database itself and encodes them, so the event loop that serves participants
 * only relays bytes, and neither the rows nor the encoder's garbage reach its heap. The worker's
 * heap is its own, kept small by a resource limit; closing the stream stops it.
 */
export function parquetExport(
  workerUrl: URL,
  workerData: unknown,
  transferList: Transferable[] = [],
): Readable {
  const out = new PassThrough();
  const worker = new Worker(workerUrl, {
    workerData,
    transferList: transferList as never,
    resourceLimits: EXPORT_HEAP,
  });
  running++;
  let ended = false;
  const stop = () => {
    ended = true;
    void worker.terminate();
  };
  out.on("close", stop);
  const fail = (err: Error) => {
    if (ended) return;
    stop();
    out.destroy(err);
  };
  worker.on("message", (m: FromExportWorker) => {
    if ("error" in m) fail(new Error(`Parquet export failed: ${m.error}`));
    else if ("done" in m) {
      ended = true;
      out.end();
      void worker.terminate();
    } else if (out.write(Buffer.from(m.bytes)))
      worker.postMessage({ written: true } satisfies ToExportWorker);
    else out.once("drain", () => worker.postMessage({ written: true } satisfies ToExportWorker));
  });
  worker.on("error", fail);
  worker.on("exit", (code) => {
    running--;
    fail(new Error(`the Parquet export stopped (exit code ${code})`));
  });
  return out;
}
