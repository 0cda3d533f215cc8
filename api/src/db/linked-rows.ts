// A database as a worker thread reads it without a query builder: statements in, rows out. The
// Parquet export's worker uses it, so that its thread does not load knex as well.
import type { RunRows } from "@feedlab/projector/read-models/events/events.queries.ts";
import { type DbLink, pgliteOverPort } from "@feedlab/sql";

/** A connection of `link`'s database: its statements take `?` placeholders, as knex's raw does. */
export interface LinkedRows {
  readonly rows: RunRows;
  /**
   * PostgreSQL only: the data of a `COPY ... TO STDOUT` statement as it arrives (read at the
   * reader's pace: the database waits while the reader does).
   */
  readonly copyOut?: (sql: string) => AsyncIterable<Buffer>;
  close(): Promise<void>;
}

/** `?` placeholders as the drivers number them (`$1`, `$2`, ...). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** One connection of the database of `link` (PostgreSQL by its URL, PGlite through its worker's port). */
export async function openLinkedRows(link: DbLink): Promise<LinkedRows> {
  if ("databaseUrl" in link) {
    const [{ default: pg }, { to }] = await Promise.all([import("pg"), import("pg-copy-streams")]);
    const client = new pg.Client({ connectionString: link.databaseUrl });
    await client.connect();
    return {
      rows: async (sql, bindings) => (await client.query(numbered(sql), [...bindings])).rows,
      copyOut: (sql) => client.query(to(sql)),
      close: () => client.end(),
    };
  }
  const pglite = pgliteOverPort(link.pglite);
  await pglite.waitReady;
  const session = pglite.session();
  return {
    rows: async (sql, bindings) => (await session.query(numbered(sql), [...bindings])).rows,
    close: () => session.close(),
  };
}
