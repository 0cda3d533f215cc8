import type { Knex } from "knex";

/**
 * Simulated participants and dry runs (issue 36, api.md "Simulated participants"): a participant is
 * simulated by this flag, which only the server-side runner sets; a dry run's report holds no
 * participant data, so it has no reference to `users` and outlives their erasure.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("alter table users add column simulated boolean not null default false");
  await db.schema.createTable("dry_runs", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("status", 10).notNullable();
    t.integer("participants_per_arm").notNullable();
    t.boolean("browser").notNullable();
    t.bigInteger("seed").notNullable();
    t.integer("done").notNullable().defaultTo(0);
    t.integer("total").notNullable().defaultTo(0);
    t.jsonb("arms").notNullable().defaultTo("[]");
    t.jsonb("warnings").notNullable().defaultTo("[]");
    t.text("error");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("started_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    t.index(["experiment_id", "created_at"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("dry_runs");
  await db.raw("alter table users drop column if exists simulated");
}
