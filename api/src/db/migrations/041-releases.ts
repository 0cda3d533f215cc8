import type { Knex } from "knex";

/**
 * `feedlab_releases`: each Feedlab release that has migrated this database, once, with when it first
 * did (docs/upgrades.md). A start of an older release reads it to name the release that made the
 * schema newer than its own code, and refuses before it changes anything.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("feedlab_releases", (t) => {
    t.text("version").primary();
    t.timestamp("first_migrated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable("feedlab_releases");
}
