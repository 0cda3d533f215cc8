import type { Knex } from "knex";

/**
 * The recommender registry: registered external_http recommenders, plus one row per built-in whose
 * label, description or category an admin changed (kind `builtin`; the built-ins themselves are
 * defined in code, so a built-in without a row is served with its defaults).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("recommenders", (t) => {
    t.string("key", 64).primary();
    t.string("kind", 32).notNullable();
    t.string("label", 255).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.string("category", 100).notNullable().defaultTo("");
    t.boolean("supports_feed").notNullable();
    t.boolean("supports_watch").notNullable();
    t.jsonb("config").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    "ALTER TABLE recommenders ADD CONSTRAINT recommenders_kind_check CHECK (kind IN ('builtin','external_http'))",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("recommenders");
}
