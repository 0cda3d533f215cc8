import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import type { Db } from "@feedlab/sql";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { migrate } from "./db.ts";
import { adoptLegacyMigrations, MIGRATIONS, migrationSource } from "./migrations/index.ts";
import { VERSION } from "./release.ts";

/**
 * `feedlab backup` and `feedlab restore`: a logical backup of the whole database, the same for PGlite
 * and PostgreSQL. It is read in one repeatable-read transaction, so it is one consistent snapshot
 * while the service keeps running: everything committed before the backup started is in it (an
 * acknowledged event is committed: the embedded log's append commits before it answers).
 *
 * The file is gzip'd text, one line each, tab-separated:
 * - `H` and a JSON header: `{feedlab_backup: 1, created_at, database, release, migrations: [names]}`
 *   (`release`, the version that wrote it, since 0.2.0);
 * - `T` and a table name, then its rows as `R` and the row's JSON (`row_to_json`), tables in an order
 *   where every table comes after the tables it references;
 * - `E` and `{tables, rows}` last: a file without it was cut short.
 */
const BACKUP_FORMAT = 1;

/** Rows read per statement. */
const PAGE = 5000;
/** Rows written per insert on restore. */
const INSERT_CHUNK = 1000;

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

export interface BackupSummary {
  readonly tables: number;
  readonly rows: number;
}

/**
 * Tables a backup leaves out: participants' own keys, which seal their addresses for reminders
 * (docs/longitudinal.md), so a backup file holds every address only sealed. After a restore those
 * participants get no more reminders; everything else of theirs is there.
 */
const NOT_BACKED_UP = new Set(["participant_keys"]);

/** The tables to back up (every table but knex's own and NOT_BACKED_UP), each after the tables it references. */
async function tablesInOrder(sql: Knex | Knex.Transaction): Promise<string[]> {
  const tables = rowsOf<{ name: string }>(
    await sql.raw(
      `select tablename as name from pg_tables
       where schemaname = current_schema() and tablename not like 'knex\\_migrations%'
       order by tablename`,
    ),
  )
    .map((r) => r.name)
    .filter((t) => !NOT_BACKED_UP.has(t));
  const refs = rowsOf<{ child: string; parent: string }>(
    await sql.raw(
      `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
       from pg_constraint c join pg_namespace n on n.oid = c.connamespace
       where c.contype = 'f' and n.nspname = current_schema()`,
    ),
  );
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const r of refs) if (r.child !== r.parent) parents.get(r.child)?.add(r.parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (t: string, path: Set<string>) => {
    if (placed.has(t) || path.has(t)) return;
    path.add(t);
    for (const p of parents.get(t) ?? []) visit(p, path);
    placed.add(t);
    ordered.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return ordered;
}

/** Writes a backup of the whole database to `out` (gzip'd); answers what it wrote. */
export async function writeBackup(
  db: Db,
  out: Writable,
  options: { database: string; onProgress?: (table: string, rows: number) => void },
): Promise<BackupSummary> {
  const gzip = createGzip();
  gzip.pipe(out);
  const write = async (line: string) => {
    if (!gzip.write(`${line}\n`)) await once(gzip, "drain");
  };
  let rows = 0;
  let tableCount = 0;
  await db.transaction(
    async (trx) => {
      const migrations = (await trx("knex_migrations").orderBy("id").select("name")) as { name: string }[];
      await write(
        `H\t${JSON.stringify({
          feedlab_backup: BACKUP_FORMAT,
          created_at: new Date().toISOString(),
          database: options.database,
          release: VERSION,
          migrations: migrations.map((m) => m.name),
        })}`,
      );
      for (const table of await tablesInOrder(trx)) {
        tableCount++;
        await write(`T\t${table}`);
        // Pages in physical order: within the snapshot a row's ctid does not change.
        let after = "(0,0)";
        let n = 0;
        for (;;) {
          const page = rowsOf<{ c: string; j: string }>(
            await trx.raw(
              `select t.ctid::text as c, row_to_json(t)::text as j from ?? t
               where t.ctid > ?::tid order by t.ctid limit ${PAGE}`,
              [table, after],
            ),
          );
          for (const r of page) await write(`R\t${r.j}`);
          n += page.length;
          options.onProgress?.(table, n);
          if (page.length < PAGE) break;
          after = (page[page.length - 1] as { c: string }).c;
        }
        rows += n;
      }
      await write(`E\t${JSON.stringify({ tables: tableCount, rows })}`);
    },
    { isolationLevel: "repeatable read", readOnly: true },
  );
  gzip.end();
  await once(out, "finish");
  return { tables: tableCount, rows };
}

interface Header {
  readonly feedlab_backup: number;
  readonly database: string;
  readonly created_at: string;
  readonly release?: string;
  readonly migrations: readonly string[];
}

/**
 * Reads a whole backup file through once and checks it: a header this release reads, and the end line
 * with the counts it announces. Answers the header; throws BackupError otherwise.
 */
async function checkBackup(input: Readable): Promise<Header> {
  let header: Header | null = null;
  let tables = 0;
  let rows = 0;
  let end: BackupSummary | null = null;
  try {
    const lines = createInterface({ input: input.pipe(createGunzip()), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (header === null) header = parseHeader(line);
      else if (line.startsWith("R\t")) rows++;
      else if (line.startsWith("T\t")) tables++;
      else if (line.startsWith("E\t")) end = JSON.parse(line.slice(2)) as BackupSummary;
    }
  } catch (e) {
    if (e instanceof BackupError) throw e;
    throw new BackupError(
      `The backup file is damaged or cut short (${(e as Error).message}): nothing was restored.`,
    );
  }
  if (header === null) throw new BackupError("The file is empty: it is not a Feedlab backup.");
  if (!end || end.tables !== tables || end.rows !== rows)
    throw new BackupError("The backup file is incomplete (cut short): nothing was restored.");
  return header;
}

function parseHeader(line: string): Header {
  try {
    if (!line.startsWith("H\t")) throw new Error("no header");
    const header = JSON.parse(line.slice(2)) as Header;
    if (header.feedlab_backup !== BACKUP_FORMAT) throw new Error(`format ${header.feedlab_backup}`);
    return header;
  } catch (e) {
    throw new BackupError(`This is not a Feedlab backup this release can read (${(e as Error).message}).`);
  }
}

/**
 * Restores a backup (`open` opens the file; it is read twice) into an empty database: the schema of
 * the backup's release, its rows, then this release's later migrations. Refuses a database that
 * already holds tables, a file of a newer release, and a file cut short (nothing is kept of it: the
 * rows load in one transaction).
 */
export async function restoreBackup(
  db: Db,
  open: () => Readable,
  options: { onProgress?: (table: string, rows: number) => void } = {},
): Promise<BackupSummary & { readonly createdAt: string }> {
  const existing = rowsOf<{ n: string | number }>(
    await db.raw("select count(*) as n from pg_tables where schemaname = current_schema()"),
  );
  if (Number(existing[0]?.n ?? 0) > 0)
    throw new BackupError("The database is not empty: restore into a new data folder or an empty database.");

  // The whole file is checked before the database is touched: a damaged file changes nothing.
  const header = await checkBackup(open());
  const known = MIGRATIONS.map((m) => m.name);
  const unknown = header.migrations.filter((m) => !known.includes(m));
  if (unknown.length > 0)
    throw new BackupError(
      `The backup comes from ${header.release ? `Feedlab ${header.release}, newer than this Feedlab ${VERSION}` : `a Feedlab newer than this one (${VERSION})`} ` +
        `(migrations ${unknown.join(", ")}): restore it with that release or a later one. Nothing was restored.`,
    );

  // The schema as it was when the backup was taken.
  await adoptLegacyMigrations(db);
  const done = async () =>
    ((await db.migrate.list({ migrationSource })) as [{ name: string }[], unknown[]])[0];
  while ((await done()).length < header.migrations.length) await db.migrate.up({ migrationSource });

  let rows = 0;
  let tables = 0;
  let complete = false;
  const lines = createInterface({ input: open().pipe(createGunzip()), crlfDelay: Number.POSITIVE_INFINITY });
  const iterator = lines[Symbol.asyncIterator]();
  await iterator.next(); // the header, checked above
  await db.transaction(async (trx) => {
    let table: string | null = null;
    let chunk: string[] = [];
    let count = 0;
    const flush = async () => {
      if (!table || chunk.length === 0) return;
      await trx.raw(
        `insert into ?? overriding system value select * from json_populate_recordset(null::??, ?::json)`,
        [table, table, `[${chunk.join(",")}]`],
      );
      count += chunk.length;
      chunk = [];
      options.onProgress?.(table, count);
    };
    const finishTable = async () => {
      await flush();
      if (table) await trx.raw("alter table ?? enable trigger user", [table]);
      rows += count;
    };
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      const line = String(next.value);
      const kind = line.slice(0, 2);
      if (kind === "T\t") {
        await finishTable();
        table = line.slice(2);
        tables++;
        count = 0;
        // The rows were valid when written; the tables' own checks on insert would judge them again
        // against a half-restored database.
        await trx.raw("alter table ?? disable trigger user", [table]);
      } else if (kind === "R\t") {
        chunk.push(line.slice(2));
        if (chunk.length >= INSERT_CHUNK) await flush();
      } else if (kind === "E\t") {
        await finishTable();
        table = null;
        complete = true;
      }
    }
    if (!complete) throw new BackupError("The backup file is incomplete (cut short): nothing was restored.");
    // Identity and serial columns continue after the restored rows.
    const sequences = rowsOf<{ table_name: string; column_name: string; seq: string }>(
      await trx.raw(
        `select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as seq
         from information_schema.columns
         where table_schema = current_schema()
           and pg_get_serial_sequence(quote_ident(table_name), column_name) is not null`,
      ),
    );
    for (const s of sequences) {
      await trx.raw(`select setval(?, coalesce((select max(??) from ??), 0) + 1, false)`, [
        s.seq,
        s.column_name,
        s.table_name,
      ]);
    }
  });
  // Then whatever this release added since.
  await migrate(db);
  return { tables, rows, createdAt: header.created_at };
}
