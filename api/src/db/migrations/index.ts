import type { Knex } from "knex";
import * as m001 from "./001-foundation.ts";
import * as m002 from "./002-events.ts";
import * as m003 from "./003-recommenders.ts";
import * as m004 from "./004-model-runs.ts";
import * as m020 from "./020-surveys.ts";

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/**
 * Migrations in order. Names are stable: they are recorded in `knex_migrations`.
 * Numbering note: the spec pins the survey tables to migration 020.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ["001-foundation", m001],
  ["002-events", m002],
  ["003-recommenders", m003],
  ["004-model-runs", m004],
  ["020-surveys", m020],
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m[0],
  getMigration: async (m) => m[1],
};
