import { applyMigrations, type Db } from "@feedlab/sql";
import { adoptLegacyMigrations, MIGRATIONS } from "./migrations/index.ts";
import { recordRelease, refuseNewerSchema } from "./release.ts";

/**
 * Applies every workspace's pending migrations, in the one order of `MIGRATIONS`, after recording
 * the names of release 0.1.0's migrations a database already applied, and records this release;
 * returns the names applied. A database a newer release migrated is refused (SchemaNewerError)
 * before anything is written.
 */
export async function migrate(db: Db): Promise<string[]> {
  await refuseNewerSchema(db);
  const applied = await applyMigrations(db, MIGRATIONS, adoptLegacyMigrations);
  await recordRelease(db);
  return applied;
}
