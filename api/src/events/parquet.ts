import { spawn } from "node:child_process";
import type { ServerResponse } from "node:http";
import module from "node:module";
import { Worker } from "node:worker_threads";
import type { ParquetWriter } from "hyparquet-writer";

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

/** A column of a Parquet export: its name and how it is typed. */
export type Kind = "string" | "json" | "timestamp" | "double" | "int32" | "int64" | "boolean";

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
  boolean: { type: "BOOLEAN" },
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
 * bytes a chunk at a time (`bytes`, transferred, of which the first `length` are the chunk), then
 * `done`, or `error`; this thread sends each buffer back (`written`) once the socket has written it,
 * and the worker keeps at most EXPORT_WINDOW chunks unanswered (backpressure: a slow client pauses
 * the database reads).
 */
export type FromExportWorker = { bytes: ArrayBuffer; length: number } | { done: true } | { error: string };
export type ToExportWorker = { written: true; bytes: ArrayBuffer };

/** Chunks the export worker may have in flight to the client. */
export const EXPORT_WINDOW = 2;

/**
 * Bytes of a chunk at most: a row group (about 1.4 MB of 10,000 events) goes out in pieces, so that
 * the buffers in flight and the worker's spare ones hold little.
 */
export const EXPORT_CHUNK = 256 * 1024;

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
 * Loads a worker's modules once in a short-lived process of its own (given no work, they do
 * nothing), so that Node's compile cache holds them stripped of their types. Otherwise the first
 * export after an install or an upgrade loads Node's TypeScript stripper into its worker, and the
 * export's peak memory grows by the stripper's. A thread of this process would leave part of its
 * memory resident here. Nothing to do when the compile cache is off (tests).
 */
export function warmWorker(workerUrl: URL): void {
  const dir = module.getCompileCacheDir?.();
  if (!dir) return;
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", `await import(${JSON.stringify(workerUrl.href)})`],
    { env: { ...process.env, NODE_COMPILE_CACHE: dir }, stdio: "ignore" },
  );
  child.on("error", () => {});
  child.unref();
}

/** Sends a Parquet export as the response: see `parquetExport`. */
export type SendParquet = (res: ServerResponse) => Promise<void>;

/**
 * The Parquet file a worker thread makes (`workerUrl`, given `workerData`), to be sent as a response:
 * the worker reads the rows from the database itself and encodes them, so the event loop that serves
 * participants only relays bytes, and neither the rows nor the encoder's garbage reach its heap. The
 * worker's heap is its own, kept small by a resource limit.
 *
 * The bytes are written to the response directly, not through a stream, so that each chunk's buffer
 * goes back to the worker once the socket has written it (see postParquet). The returned promise
 * settles when the response starts: it rejects if the export fails before its first byte (the
 * caller answers with an error), and a failure after that cuts the response short, which clients
 * see as an incomplete download. A client that goes away stops the worker.
 */
export function parquetExport(
  workerUrl: URL,
  workerData: unknown,
  transferList: Transferable[] = [],
): SendParquet {
  return (res) =>
    new Promise<void>((resolve, reject) => {
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        res.writeHead(200);
        resolve();
      };
      if (res.req.method === "HEAD") {
        start();
        res.end();
        return;
      }
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
      res.on("close", stop);
      const fail = (err: Error) => {
        if (ended) return;
        stop();
        if (started) res.destroy(err);
        else reject(err);
      };
      worker.on("message", (m: FromExportWorker) => {
        if ("error" in m) fail(new Error(`Parquet export failed: ${m.error}`));
        else if ("done" in m) {
          ended = true;
          start();
          res.end();
          void worker.terminate();
        } else {
          start();
          res.write(new Uint8Array(m.bytes, 0, m.length), (err) => {
            if (!err && !ended)
              worker.postMessage({ written: true, bytes: m.bytes } satisfies ToExportWorker, [m.bytes]);
          });
        }
      });
      worker.on("error", fail);
      worker.on("exit", (code) => {
        running--;
        fail(new Error(`the Parquet export stopped (exit code ${code})`));
      });
    });
}
