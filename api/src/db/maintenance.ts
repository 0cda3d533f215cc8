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

/** How often the embedded database is maintained, and how long after start the first pass runs. */
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;
const FIRST_PASS_MS = 60_000;

export interface MaintenancePass {
  /** Milliseconds per statement, in the order they ran. */
  readonly statements: readonly { readonly sql: string; readonly ms: number }[];
  readonly ms: number;
}

/**
 * One maintenance pass: VACUUM (ANALYZE) of the tables that churn, ANALYZE of the append-only ones.
 * PostgreSQL's autovacuum does this on its own; PGlite has no background workers, so without it the
 * planner works from no statistics and upserted tables keep every replaced row.
 */
export async function maintainDatabase(db: Knex): Promise<MaintenancePass> {
  const started = performance.now();
  const statements: { sql: string; ms: number }[] = [];
  const run = async (sql: string) => {
    const t0 = performance.now();
    await db.raw(sql);
    statements.push({ sql, ms: Math.round(performance.now() - t0) });
  };
  for (const table of CHURNING) await run(`VACUUM (ANALYZE) ${table}`);
  for (const table of APPEND_ONLY) await run(`ANALYZE ${table}`);
  return { statements, ms: Math.round(performance.now() - started) };
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
        const slowest = result.statements.reduce((a, b) => (b.ms > a.ms ? b : a));
        const fields = { ms: result.ms, slowest: slowest.sql, slowest_ms: slowest.ms };
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
