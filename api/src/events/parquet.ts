import { PassThrough, type Readable } from "node:stream";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { snappyCompress } from "hysnappy";

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

/** A column of the Parquet export: its name and how it is typed. */
export type Kind = "string" | "json" | "timestamp" | "double" | "int32" | "int64";

const LEAF: Record<Kind, Omit<SchemaElement, "name">> = {
  string: { type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } },
  // JSON text as it is: the writer would encode it again if the schema said JSON while writing (see
  // parquetStream), so the converted type is set for the footer only.
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
 * A hyparquet-writer Writer that hands each finished row group to a Node stream and waits while the
 * client is slower than the export (backpressure), so memory holds one row group at a time.
 */
function streamWriter(out: PassThrough) {
  const writer: ByteWriter & { flush?: () => Promise<void> | undefined } = new ByteWriter(1 << 20);
  const push = (): Promise<void> | undefined => {
    if (writer.index === 0) return;
    const chunk = Buffer.from(writer.buffer.slice(0, writer.index));
    writer.index = 0;
    if (out.write(chunk)) return;
    return new Promise((resolve) => out.once("drain", resolve));
  };
  writer.flush = push;
  writer.finish = () => {
    void push();
  };
  return writer;
}

/**
 * Streams rows as a Parquet file: `pages` yields rows in order; every `rowGroup` rows become one row
 * group, written out before more are read. Column values come from `value(row, column)`.
 */
export function parquetStream<Row>(options: {
  columns: readonly (readonly [string, Kind])[];
  pages: AsyncIterable<readonly Row[]>;
  value: (row: Row, column: string) => unknown;
  rowGroup?: number;
  createdBy: string;
  /** Columns without min/max statistics (values no reader filters on by range). */
  noStatistics?: readonly string[];
  /** Columns written plain, without trying a dictionary (values that never repeat). */
  plain?: readonly string[];
}): Readable {
  const { columns, pages, value, createdBy } = options;
  const rowGroup = options.rowGroup ?? 10_000;
  const out = new PassThrough();
  const schema = parquetSchema(columns);
  const names = columns.map(([name]) => name);
  void (async () => {
    const writer = streamWriter(out);
    // Snappy (the format's usual codec), in WebAssembly (hysnappy, by the writer's authors).
    const parquet = new ParquetWriter({ writer, schema, createdBy, compressors: { SNAPPY: snappyCompress } });
    let data: unknown[][] = columns.map(() => []);
    let rows = 0;
    const flushGroup = async () => {
      if (rows === 0) return;
      await parquet.write({
        // Statistics (min and max per row group) help readers skip data; of JSON text they do not.
        columnData: columns.map(([name, kind], i) => ({
          name,
          data: data[i] as unknown[],
          statistics: kind !== "json" && !(options.noStatistics ?? []).includes(name),
          ...((options.plain ?? []).includes(name) ? { encoding: "PLAIN" as const } : {}),
        })),
        rowGroupSize: rows,
      });
      data = columns.map(() => []);
      rows = 0;
    };
    try {
      for await (const page of readAhead(pages)) {
        for (const row of page) {
          for (let i = 0; i < names.length; i++) (data[i] as unknown[]).push(value(row, names[i] as string));
          rows++;
        }
        if (rows >= rowGroup) await flushGroup();
      }
      await flushGroup();
      // The footer's schema says which columns hold JSON (readers such as DuckDB go by the
      // converted type); the row groups above were written from the text as it came.
      for (const element of parquet.schema)
        if (element.logical_type?.type === "JSON") element.converted_type = "JSON";
      await parquet.finish();
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}

/**
 * The pages of `source`, asking for the next one before handing out the current: the database
 * prepares page n + 1 (on its own process) while page n is encoded here.
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
