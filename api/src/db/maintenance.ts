import { PROJECTIONS } from "@feedlab/projector";
import type { Knex } from "knex";
import type { Logger } from "pino";

/**
 * Tables that only grow: ANALYZE keeps the planner's statistics current (it reads a fixed-size
 * sample, so its cost does not grow with the table).
 */
const APPEND_ONLY = ["events", "event_log"] as const;

/**
 * Every other table: updated or replaced in place (upserted read models, sessions, the trainer's
 * output swapped per run), so each also needs VACUUM to reuse the space of the rows it replaced.
 */
const CHURNING = [
  ...PROJECTIONS.flatMap((p) => p.tables).filter((t) => !(APPEND_ONLY as readonly string[]).includes(t)),
  "consumer_checkpoints",
  "sessions",
  "auth_sessions",
  "users",
  "recommendation_cache",
  "item_similarity",
  "model_runs",
  "survey_responses",
  "dead_letters",
];

/** Every table a pass looks at, in its order: `churns` for VACUUM (ANALYZE), else ANALYZE alone. */
export const MAINTAINED: readonly { readonly table: string; readonly churns: boolean }[] = [
  ...CHURNING.map((table) => ({ table, churns: true })),
  ...APPEND_ONLY.map((table) => ({ table, churns: false })),
];

/** How often the embedded database is maintained, and how long after start the first pass runs. */
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;
const FIRST_PASS_MS = 60_000;

export interface MaintenancePass {
  /** Milliseconds per statement, in the order they ran. */
  readonly statements: readonly { readonly sql: string; readonly ms: number }[];
  /** Tables left alone: their statistics and free space are current enough. */
  readonly skipped: number;
  readonly ms: number;
}

/** A table's size and changes: what `due` decides on. */
interface TableState {
  readonly table: string;
  /** pg_class.reltuples: -1 until the table is first vacuumed or analyzed. */
  readonly reltuples: number;
  /** pg_class.relpages: the table's pages when it was last vacuumed or analyzed. */
  readonly relpages: number;
  /** Its pages now. */
  readonly pages: number;
  /**
   * This process's counts: dead rows, rows changed since the last ANALYZE, rows inserted since the
   * last VACUUM.
   */
  readonly dead: number;
  readonly modified: number;
  readonly inserted: number;
}

/**
 * Whether a table needs ANALYZE, and VACUUM as well (`churns`), by PostgreSQL's autovacuum defaults
 * (a base of rows and a fifth or a tenth of the table changed since). The changes are counted per
 * process (PGlite keeps no statistics across a restart), so a table that grew by a tenth since its
 * statistics were taken, found by its size on disk against pg_class, is due too: after a restart
 * nothing is lost, and a table left unchanged is not read again. ANALYZE samples a fixed number of
 * rows, but reading them from a large table takes a while (events of 5 million rows: half a second in
 * which every other statement waits), so this matters most on the first pass after a start.
 */
function due(t: TableState, churns: boolean): "vacuum" | "analyze" | null {
  const rows = Math.max(t.reltuples, 0);
  const grew = t.pages > 1.1 * t.relpages + 8;
  const analyze = t.reltuples < 0 || grew || t.modified > 50 + 0.1 * rows;
  if (!churns) return analyze ? "analyze" : null;
  const vacuum = t.dead > 50 + 0.2 * rows || t.inserted > 1000 + 0.2 * rows;
  return analyze || vacuum ? "vacuum" : null;
}

async function tableStates(db: Knex, tables: readonly string[]): Promise<Map<string, TableState>> {
  const result = await db.raw(
    `select c.relname as table, c.reltuples::float8 as reltuples, c.relpages,
       (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages,
       coalesce(s.n_dead_tup, 0)::int as dead, coalesce(s.n_mod_since_analyze, 0)::int as modified,
       coalesce(s.n_ins_since_vacuum, 0)::int as inserted
     from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
     where c.relname = any(?) and c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`,
    [[...tables]],
  );
  const rows = (result.rows ?? result) as TableState[];
  return new Map(rows.map((r) => [r.table, { ...r, reltuples: Number(r.reltuples) }]));
}

/**
 * One maintenance pass: VACUUM (ANALYZE) of the tables that churn, ANALYZE of the append-only ones,
 * each only when `due`. PostgreSQL's autovacuum does this on its own; PGlite has no background workers,
 * so without it the planner works from no statistics and upserted tables keep every replaced row.
 */
export async function maintainDatabase(db: Knex): Promise<MaintenancePass> {
  const started = performance.now();
  const statements: { sql: string; ms: number }[] = [];
  const run = async (sql: string) => {
    const t0 = performance.now();
    await db.raw(sql);
    statements.push({ sql, ms: Math.round(performance.now() - t0) });
  };
  const states = await tableStates(
    db,
    MAINTAINED.map((m) => m.table),
  );
  let skipped = 0;
  for (const { table, churns } of MAINTAINED) {
    const state = states.get(table);
    const work = state === undefined ? null : due(state, churns);
    if (work === "vacuum") await run(`VACUUM (ANALYZE) ${table}`);
    else if (work === "analyze") await run(`ANALYZE ${table}`);
    else skipped++;
  }
  return { statements, skipped, ms: Math.round(performance.now() - started) };
}

/**
 * Runs `maintainDatabase` a minute after start and then every MAINTENANCE_INTERVAL_MS, for the
 * embedded database. PGlite has one connection, so other queries wait while a statement runs; a
 * pass over a large database is logged with its slowest statement.
 */
export function scheduleMaintenance(db: Knex, log: Logger, intervalMs = MAINTENANCE_INTERVAL_MS) {
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = () => {
    if (stopped || running) return;
    running = maintainDatabase(db)
      .then((result) => {
        const slowest = result.statements.reduce((a, b) => (b.ms > a.ms ? b : a), { sql: "", ms: 0 });
        const fields = {
          ms: result.ms,
          statements: result.statements.length,
          skipped: result.skipped,
          slowest: slowest.sql,
          slowest_ms: slowest.ms,
        };
        if (result.ms > 1000) log.info(fields, "embedded database maintained (VACUUM, ANALYZE)");
        else log.debug(fields, "embedded database maintained (VACUUM, ANALYZE)");
      })
      .catch((err: unknown) => {
        if (!stopped) log.warn({ err }, "embedded database maintenance failed; next pass as scheduled");
      })
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(pass, Math.min(FIRST_PASS_MS, intervalMs));
  const every = setInterval(pass, intervalMs);
  first.unref();
  every.unref();
  return {
    /** Stops scheduling and waits for a pass in progress. */
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
