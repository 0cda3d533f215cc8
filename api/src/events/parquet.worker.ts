// Encodes Parquet row groups in a worker thread (parquet.ts): the encoder's work and its garbage stay
// off the event loop that serves participants, in a heap of its own that a resource limit keeps small.
// Messages in: {page: unknown[][]} (a page of rows, one array per column) and {end: true}; out, for
// each: {bytes: ArrayBuffer} (transferred; empty until a row group is full); or {error: message}.
import { parentPort, workerData } from "node:worker_threads";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { snappyCompressor } from "hysnappy";
import { type ParquetColumns, parquetSchema } from "./parquet.ts";

const port = parentPort;
if (!port) throw new Error("parquet.worker.ts runs as a worker thread");
const { columns, createdBy, noStatistics, plain, rowGroup } = workerData as ParquetColumns & {
  createdBy: string;
  rowGroup: number;
};

const writer = new ByteWriter(1 << 20);
const schema = parquetSchema(columns);
// Snappy (the format's usual codec) in WebAssembly (hysnappy, by the writer's authors). One instance
// for the export: `snappyCompress` would instantiate the module, with its memory, for every page.
const parquet = new ParquetWriter({ writer, schema, createdBy, compressors: { SNAPPY: snappyCompressor() } });
const unique = columns.map(([name]) => plain.includes(name));

/** What the writer holds since the last call, handed over (the writer keeps counting offsets). */
function take(): ArrayBuffer {
  const bytes = writer.buffer.slice(0, writer.index);
  writer.index = 0;
  return bytes;
}

/**
 * Text as UTF-8 bytes: Buffer.from takes small strings from a shared pool (the writer would allocate
 * a typed array per value), and a repeated value (an arm, a session, an event type) is encoded once
 * per row group and shared.
 */
function asBytes(values: unknown[], column: number): unknown[] {
  if (unique[column]) return values.map((v) => (typeof v === "string" ? Buffer.from(v) : v));
  const seen = new Map<string, Uint8Array>();
  return values.map((v) => {
    if (typeof v !== "string") return v;
    let bytes = seen.get(v);
    if (!bytes) {
      bytes = Buffer.from(v);
      seen.set(v, bytes);
    }
    return bytes;
  });
}

let data: unknown[][] = columns.map(() => []);
let rows = 0;
/** Characters of text in the group so far: a group is written early when it holds much text. */
let chars = 0;
/** About 16 MB of text per row group at most (events with large payloads), whatever the rows. */
const MAX_GROUP_CHARS = 16 * 1024 * 1024;

function writeGroup(): void {
  if (rows === 0) return;
  const group = data;
  data = columns.map(() => []);
  rows = 0;
  chars = 0;
  void parquet.write({
    // Statistics (min and max per row group) help readers skip data; of ids and JSON they do not.
    columnData: columns.map(([name, kind], i) => ({
      name,
      data: asBytes(group[i] ?? [], i),
      statistics: kind !== "json" && !noStatistics.includes(name),
      ...(unique[i] ? { encoding: "PLAIN" as const } : {}),
      // Dictionary-encoded text gains little from compression; ids and JSON do.
      ...(kind === "string" && !unique[i] ? { codec: "UNCOMPRESSED" as const } : {}),
    })),
    rowGroupSize: group[0]?.length ?? 0,
  });
}

port.on("message", (m: { page?: unknown[][]; end?: boolean }) => {
  try {
    if (m.page) {
      const page = m.page;
      const count = page[0]?.length ?? 0;
      for (let r = 0; r < count; r++) {
        for (let i = 0; i < page.length; i++) {
          const v = (page[i] as unknown[])[r];
          (data[i] as unknown[]).push(v);
          if (typeof v === "string") chars += v.length;
        }
        if (++rows >= rowGroup || chars >= MAX_GROUP_CHARS) writeGroup();
      }
    } else if (m.end) {
      writeGroup();
      // The footer's schema says which columns hold JSON (readers such as DuckDB go by the converted
      // type); the row groups were written from the text as it came, which the writer would
      // otherwise have encoded as JSON again.
      for (const element of parquet.schema)
        if (element.logical_type?.type === "JSON") element.converted_type = "JSON";
      void parquet.finish();
    }
    const bytes = take();
    port.postMessage({ bytes }, [bytes]);
  } catch (err) {
    port.postMessage({ error: String((err as Error)?.message ?? err) });
  }
});
