// What a release's upgrade fixture holds, table by table (docs/upgrades.md): each table's columns,
// row count and a hash of its rows, computed by the database itself so that PGlite and PostgreSQL, and a
// data folder and a restored backup, give the same manifest for the same rows.
import type { Db } from "@feedlab/sql";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";

/** One table of a manifest. */
export interface TableManifest {
  /** The columns the release's table had, in their order; a later release's added columns are not hashed. */
  readonly columns: readonly string[];
  readonly rows: number;
  /** SHA-256 of the rows' text (`row(columns)::text`), sorted by byte, one per line. */
  readonly sha256: string;
  /** Columns of the fixture's table that this database's table no longer has (none in a fixture). */
  readonly gone?: readonly string[];
}

export interface Manifest {
  /** The release that wrote the fixture. */
  readonly release: string;
  readonly tables: Readonly<Record<string, TableManifest>>;
}

/**
 * Bookkeeping a later release changes by design: knex's migration records, and the releases that
 * migrated the database (a start adds its own). The upgrade test checks the fixture's release row apart.
 */
const BOOKKEEPING = new Set(["knex_migrations", "knex_migrations_lock", "feedlab_releases"]);

/** The database's tables, but the bookkeeping, by name. */
async function tablesOf(db: Db): Promise<string[]> {
  return rowsOf<{ name: string }>(
    await db.raw("select tablename as name from pg_tables where schemaname = current_schema() order by 1"),
  )
    .map((r) => r.name)
    .filter((t) => !BOOKKEEPING.has(t));
}

async function columnsOf(db: Db | Knex.Transaction, table: string): Promise<string[]> {
  return rowsOf<{ name: string }>(
    await db.raw(
      `select column_name as name from information_schema.columns
       where table_schema = current_schema() and table_name = ? order by ordinal_position`,
      [table],
    ),
  ).map((r) => r.name);
}

/**
 * Each table's manifest: of `only` (a fixture's tables, with the columns it had), or of every table
 * with all its columns. Timestamps are rendered in UTC, so the session's time zone does not matter.
 */
export async function tableManifests(
  db: Db,
  only?: Readonly<Record<string, { readonly columns: readonly string[] }>>,
): Promise<Record<string, TableManifest>> {
  const tables = only ? Object.keys(only) : await tablesOf(db);
  const out: Record<string, TableManifest> = {};
  await db.transaction(
    async (trx) => {
      await trx.raw("set local time zone 'UTC'");
      for (const table of tables) {
        const present = await columnsOf(trx, table);
        if (present.length === 0) continue;
        const columns = only?.[table]?.columns ?? present;
        const gone = columns.filter((c) => !present.includes(c));
        if (gone.length > 0) {
          out[table] = { columns, rows: 0, sha256: "", gone };
          continue;
        }
        const row = `row(${columns.map(() => "t.??").join(", ")})::text`;
        const [r] = rowsOf<{ rows: string | number; sha256: string | null }>(
          await trx.raw(
            `select count(*) as rows,
               encode(sha256(convert_to(coalesce(string_agg(x, E'\\n' order by x collate "C"), ''), 'UTF8')), 'hex') as sha256
             from (select ${row} as x from ?? t) s`,
            [...columns, table],
          ),
        );
        out[table] = { columns, rows: Number(r?.rows ?? 0), sha256: r?.sha256 ?? "" };
      }
    },
    { isolationLevel: "repeatable read" },
  );
  return out;
}

/**
 * How `actual` differs from `expected`, one line per table: missing tables and columns, changed counts
 * or rows. Empty when every table of `expected` holds what it held. `leaveOut`: tables not compared.
 */
export function differences(
  expected: Manifest["tables"],
  actual: Manifest["tables"],
  leaveOut: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  for (const [table, want] of Object.entries(expected)) {
    if (leaveOut.has(table)) continue;
    const got = actual[table];
    if (!got) out.push(`${table}: the table is gone`);
    else if (got.gone?.length) out.push(`${table}: the columns ${got.gone.join(", ")} are gone`);
    else if (got.rows !== want.rows) out.push(`${table}: ${want.rows} rows before, ${got.rows} now`);
    else if (got.sha256 !== want.sha256)
      out.push(`${table}: the same ${got.rows} rows, but their values changed`);
  }
  return out;
}
