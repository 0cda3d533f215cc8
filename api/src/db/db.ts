import { applyMigrations, type Db } from "@feedlab/sql";
import { adoptLegacyMigrations, MIGRATIONS } from "./migrations/index.ts";

/**
 * Applies every workspace's pending migrations, in the one order of `MIGRATIONS`, after recording
 * the names of release 0.1.0's migrations a database already applied; returns the names applied.
 */
export function migrate(db: Db): Promise<string[]> {
  return applyMigrations(db, MIGRATIONS, adoptLegacyMigrations);
}
