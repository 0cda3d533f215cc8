import type { Knex } from "knex";

/** The recruiting parameters of a participant's study link (Prolific, MTurk), kept from their first join. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable("users", (t) => {
    t.jsonb("recruiting");
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable("users", (t) => {
    t.dropColumn("recruiting");
  });
}
