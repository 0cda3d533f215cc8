import type { Table } from "./table.ts";

/** A file of the package that is not a table, as datapackage.json lists it (`feedlab:files`). */
export interface PackageFile {
  readonly path: string;
  readonly description: string;
}

/** A Table Schema of a table: its fields, keys and how empty cells are written. */
function tableSchema(table: Table, withKeys: boolean) {
  return {
    fields: table.fields.map((f) => ({
      name: f.name,
      type: f.type,
      ...(f.format ? { format: f.format } : {}),
      description: f.description,
      ...(f.type === "boolean" ? { trueValues: ["true"], falseValues: ["false"] } : {}),
      ...(f.constraints ? { constraints: f.constraints } : {}),
    })),
    missingValues: [""],
    ...(withKeys && table.primaryKey ? { primaryKey: table.primaryKey } : {}),
    ...(withKeys && table.foreignKeys ? { foreignKeys: table.foreignKeys } : {}),
  };
}

/** A package name as the spec allows it: lower-case letters, digits, `-`, `_` and `.`. */
export const slugOf = (text: string) =>
  text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .slice(0, 80) || "study";

/**
 * The package's descriptor: a Frictionless Tabular Data Package
 * (https://specs.frictionlessdata.io/tabular-data-package/). Each table is two resources: its CSV
 * (`<name>`, with the Table Schema and its keys) and its Parquet copy (`<name>-parquet`, format
 * parquet, the same fields without keys: the keys are stated once, on the CSVs). Every resource is a
 * tabular data resource, so validators of the v1 profile accept the Parquet ones too; tools that do
 * not read Parquet skip them by `format`. The other files are listed under `feedlab:files`.
 */
export function dataPackage(options: {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly created: string;
  readonly pseudonymized: boolean;
  readonly tables: readonly Table[];
  readonly files: readonly PackageFile[];
}) {
  return {
    profile: "tabular-data-package",
    name: slugOf(options.name),
    title: options.title,
    description: options.description,
    created: options.created,
    keywords: ["feedlab", "user study", "recommender systems", "video feeds"],
    "feedlab:pseudonymized": options.pseudonymized,
    "feedlab:files": options.files,
    resources: options.tables.flatMap((t) => [
      {
        profile: "tabular-data-resource",
        name: t.name,
        path: `${t.name}.csv`,
        title: t.title,
        description: t.description,
        format: "csv",
        mediatype: "text/csv",
        encoding: "utf-8",
        dialect: { delimiter: ",", lineTerminator: "\r\n", quoteChar: '"', doubleQuote: true, header: true },
        schema: tableSchema(t, true),
      },
      {
        profile: "tabular-data-resource",
        name: `${t.name}-parquet`,
        path: `${t.name}.parquet`,
        title: `${t.title} (Parquet)`,
        description: `${t.name}.csv as Parquet: the same rows and columns, typed as the schema says (integers as INT64 or INT32, datetimes as UTC timestamps in milliseconds, objects as JSON text).`,
        format: "parquet",
        mediatype: "application/vnd.apache.parquet",
        schema: tableSchema(t, false),
      },
    ]),
  };
}
