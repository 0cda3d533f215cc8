import type { Knex } from "knex";

/**
 * A participant of a study that balances on a pre survey's answer is assigned when they answer it
 * (api.md "Assignment (wave 4)"): until then `users.group_id` is null (and so is `users.assignment`).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("alter table users alter column group_id drop not null");
}

export async function down(db: Knex): Promise<void> {
  await db.raw("delete from users where group_id is null");
  await db.raw("alter table users alter column group_id set not null");
}
