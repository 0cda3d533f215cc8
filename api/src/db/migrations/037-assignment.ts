import type { Knex } from "knex";

/**
 * Assignment (api.md "Assignment (wave 4)", docs/assignment.md):
 *
 * - `experiments.assignment`: the method and its settings (null: balanced, counting everyone who joined,
 *   the rule of earlier releases); `experiments.assignment_state`: what a method carries from one
 *   newcomer to the next (the slots left in a permuted block), changed only under the experiment's lock;
 * - `groups.cap` and `groups.paused`: a full or paused arm takes no newcomer;
 * - `users.assignment`: how the participant was assigned and the probability of the arm they got
 *   (null for participants who joined before this release: balanced, probability 1).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable("experiments", (t) => {
    t.jsonb("assignment");
    t.jsonb("assignment_state");
  });
  await db.schema.alterTable("groups", (t) => {
    t.integer("cap");
    t.boolean("paused").notNullable().defaultTo(false);
  });
  await db.schema.alterTable("users", (t) => {
    t.jsonb("assignment");
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable("users", (t) => t.dropColumn("assignment"));
  await db.schema.alterTable("groups", (t) => {
    t.dropColumn("cap");
    t.dropColumn("paused");
  });
  await db.schema.alterTable("experiments", (t) => {
    t.dropColumn("assignment");
    t.dropColumn("assignment_state");
  });
}
