import type { Knex } from "knex";

/**
 * The audit log of admin actions (api.md: `GET /api/v1/admin/audit`): who did what to which target,
 * when, with a summary (field names, counts), never the data itself.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("audit_log", (t) => {
    t.bigIncrements("seq").primary();
    t.timestamp("at", { useTz: true }).notNullable();
    t.string("admin", 64);
    t.string("action", 64).notNullable();
    t.string("target", 255);
    t.jsonb("details").notNullable().defaultTo("{}");
    t.index(["at"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("audit_log");
}
