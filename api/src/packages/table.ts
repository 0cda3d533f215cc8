// A table of a replication package: its Table Schema (Frictionless) and its rows, written as CSV and
// as a Parquet copy with the same columns and types.
import { Readable } from "node:stream";
import type { Kind } from "../events/parquet.ts";
import { rowGroupWriter } from "../events/parquet-writer.ts";
import { csvRow } from "../http/csv.ts";

/** Table Schema field types the packages use (https://specs.frictionlessdata.io/table-schema/). */
export type FieldType = "string" | "integer" | "number" | "boolean" | "datetime" | "object";

/** A column: its Table Schema field, and how its Parquet copy stores it. */
export interface Field {
  readonly name: string;
  readonly type: FieldType;
  readonly description: string;
  /** Table Schema `format` (`uuid` for ids; datetimes get DATETIME_FORMAT). */
  readonly format?: string;
  readonly constraints?: { readonly enum?: readonly string[]; readonly required?: boolean };
  /** The Parquet type; by default the one `type` maps to (KIND_OF). */
  readonly kind?: Kind;
}

/** A cell as the rows give it: text, a number, a boolean, a JSON value, or null (an empty cell). */
export type Cell = string | number | boolean | Record<string, unknown> | null;

/** A table of the package: what datapackage.json and codebook.md say of it, and its rows. */
export interface Table {
  /** The resource name and file stem: `events` gives events.csv and events.parquet. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly fields: readonly Field[];
  readonly primaryKey?: readonly string[];
  readonly foreignKeys?: readonly {
    readonly fields: readonly string[];
    readonly reference: { readonly resource: string; readonly fields: readonly string[] };
  }[];
  /** The rows in `fields` order, a page at a time; called once for each file written. */
  rows(): AsyncIterable<readonly Cell[][]>;
}

/**
 * How every datetime is written (`Date.prototype.toISOString`, UTC with milliseconds), as a Table
 * Schema pattern: the spec's `default` format has no fraction of a second.
 */
export const DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ";

/** The Parquet type of each Table Schema type: DuckDB reads them as the type the schema names. */
const KIND_OF: Readonly<Record<FieldType, Kind>> = {
  string: "string",
  integer: "int64",
  number: "double",
  boolean: "boolean",
  datetime: "timestamp",
  object: "json",
};

/** The Table Schema type of a Parquet type (the events export's columns are typed by their Parquet kind). */
export const FIELD_TYPE_OF: Readonly<Record<Kind, FieldType>> = {
  string: "string",
  json: "object",
  timestamp: "datetime",
  double: "number",
  int32: "integer",
  int64: "integer",
  boolean: "boolean",
};

const kindOf = (f: Field): Kind => f.kind ?? KIND_OF[f.type];

/** A CSV cell: booleans as `true`/`false`, objects as JSON text, null as an empty cell. */
const csvCell = (c: Cell) => (typeof c === "boolean" ? String(c) : c);

/** The table as RFC 4180 CSV (CRLF records) with a header row, read a page at a time. */
export function tableCsv(table: Table): Readable {
  return Readable.from(
    (async function* () {
      yield csvRow(table.fields.map((f) => f.name));
      for await (const page of table.rows()) yield page.map((cells) => csvRow(cells.map(csvCell))).join("");
    })(),
  );
}

/** A cell as the Parquet writer takes it for the column's kind. */
function parquetCell(kind: Kind, c: Cell): unknown {
  if (c === null || c === "") return kind === "string" && c === "" ? "" : null;
  switch (kind) {
    case "timestamp":
      return typeof c === "string" ? Date.parse(c) : c;
    case "json":
      return typeof c === "string" ? c : JSON.stringify(c);
    case "boolean":
      return c === true || c === "true";
    case "double":
    case "int32":
    case "int64":
      return Number(c);
    case "string":
      return typeof c === "string" ? c : String(c);
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** Rows per Parquet row group of a package's files. */
const ROW_GROUP = 10_000;

/**
 * The table as Parquet: the same columns, typed as the schema says (KIND_OF), snappy-compressed row
 * groups written as the pages come (the writer the events export uses, parquet-writer.ts).
 */
export function tableParquet(table: Table): Readable {
  const kinds = table.fields.map(kindOf);
  type Row = readonly Cell[];
  const writer = rowGroupWriter<Row>({
    columns: table.fields.map((f, i) => [
      f.name,
      kinds[i] as Kind,
      (row: Row) => parquetCell(kinds[i] as Kind, row[i] ?? null),
      // Rows come as objects here, never as COPY tuples.
      () => null,
    ]),
    noStatistics: [],
    plain: [],
    createdBy: "feedlab replication package",
    rowGroup: ROW_GROUP,
  });
  // The writer's bytes are a view of its buffer, valid until the next rows: each chunk is copied.
  const copy = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes));
  return Readable.from(
    (async function* () {
      for await (const page of table.rows()) {
        const bytes = copy(writer.add(page));
        if (bytes) yield bytes;
      }
      yield copy(writer.finish()) as Buffer;
    })(),
  );
}
