import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";

/**
 * What analysts open exports with: DuckDB (the Node binding of the real engine) and pandas (Debian's
 * python3-pandas, which `.ci/run` installs). Each reads a file the test wrote from an export.
 */
export async function withFiles<T>(
  run: (file: (name: string, data: string | Buffer) => Promise<string>) => Promise<T>,
) {
  const dir = await mkdtemp(path.join(tmpdir(), "feedlab-export-"));
  try {
    return await run(async (name, data) => {
      const file = path.join(dir, name);
      await writeFile(file, data);
      return file;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Rows of a DuckDB query, as objects (JSON values: timestamps and big integers as text). */
export async function duckdb(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(":memory:");
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(sql);
    const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

/** Column names and DuckDB types of a file DuckDB reads (Parquet or CSV). */
export async function duckdbTypes(from: string): Promise<Record<string, string>> {
  const rows = await duckdb(`DESCRIBE SELECT * FROM ${from}`);
  return Object.fromEntries(rows.map((r) => [String(r.column_name), String(r.column_type)]));
}

const run = promisify(execFile);
/** Debian's interpreter, whose python3-pandas `.ci/run` installs (not a user's pyenv). */
const PYTHON = "/usr/bin/python3";

/** pandas.read_csv of a file: its dtypes, row count and first row (as pandas parsed them). */
export async function pandasReadCsv(
  file: string,
  parseDates: readonly string[] = [],
): Promise<{ dtypes: Record<string, string>; rows: number; first: Record<string, unknown> }> {
  const script = `
import json, sys, pandas as pd
df = pd.read_csv(sys.argv[1], parse_dates=json.loads(sys.argv[2]))
first = json.loads(df.head(1).to_json(orient="records", date_format="iso"))
print(json.dumps({"dtypes": {c: str(t) for c, t in df.dtypes.items()}, "rows": len(df), "first": first[0] if first else {}}))
`;
  const { stdout } = await run(PYTHON, ["-c", script, file, JSON.stringify(parseDates)]);
  return JSON.parse(stdout);
}

/**
 * A YAML text as PyYAML's `yaml.safe_load` reads it (Debian's python3-yaml, YAML 1.1, what most Python
 * users load study files with), as JSON. A value PyYAML reads as a date, a time or a set comes back as
 * `{"python": type, "value": text}`, so it never passes for the string it was meant to be.
 */
export async function pyyamlLoad(text: string): Promise<unknown> {
  const script = `
import json, sys, yaml
typed = lambda o: {"python": type(o).__name__, "value": str(o)}
print(json.dumps(yaml.safe_load(sys.stdin.read()), default=typed))
`;
  const child = run(PYTHON, ["-c", script], { maxBuffer: 64 * 1024 * 1024 });
  child.child.stdin?.end(text);
  return JSON.parse((await child).stdout);
}
