import type { Knex } from "knex";

/**
 * Prolific (api.md "Prolific (wave 4)", docs/prolific.md):
 *
 * - `experiments.prolific`: the linked Prolific study and what happens on finish;
 * - `prolific_approvals`: approvals on finish still to reach Prolific (one per participant), retried
 *   with backoff until Prolific holds the submission as awaiting review, for up to 24 hours;
 * - `prolific_bonuses`: bonus payments set up on Prolific and, once, paid. `status` moves created ->
 *   paying (committed before the pay request leaves) -> paid (Prolific accepted) or unknown (the answer
 *   was lost): a pay request is never sent for a row that is not `created`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable("experiments", (t) => {
    t.jsonb("prolific");
  });
  await db.schema.createTable("prolific_approvals", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("CASCADE");
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("state", 16).notNullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("next_at", { useTz: true }).notNullable();
    t.text("last_error");
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("done_at", { useTz: true });
    t.index(["state", "next_at"]);
    t.index(["experiment_id"]);
  });
  await db.schema.createTable("prolific_bonuses", (t) => {
    t.uuid("id").primary();
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.string("status", 16).notNullable();
    t.string("prolific_id", 64);
    t.jsonb("bonuses").notNullable();
    t.integer("count").notNullable();
    t.integer("total_cents").notNullable();
    t.string("created_by", 255);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("paid_at", { useTz: true });
    t.index(["experiment_id", "created_at"]);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("prolific_bonuses");
  await db.schema.dropTableIfExists("prolific_approvals");
  await db.schema.alterTable("experiments", (t) => t.dropColumn("prolific"));
}
