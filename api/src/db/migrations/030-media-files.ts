import type { Knex } from "knex";

/**
 * Uploaded media by content (issue 38, study documents): each stored upload's SHA-256 and the name it
 * was uploaded under, so a study document can name a file by its content and a server can tell
 * whether it already holds it. Uploads made before this migration have no row: exports name them by
 * their URL.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("media_files", (t) => {
    t.string("name", 64).primary();
    t.string("sha256", 64).notNullable().index();
    t.bigInteger("bytes").notNullable();
    t.string("kind", 16).notNullable();
    t.string("file_name", 255).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("media_files");
}
