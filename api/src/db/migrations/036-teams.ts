import type { Knex } from "knex";

/**
 * Teams (api.md "Teams (wave 4)"):
 *
 * - each account's `role`: `owner` (every experiment, the accounts and the settings) or `researcher`
 *   (the experiments they are a member of, and the shared library). Accounts made before roles are
 *   owners, so nothing changes for them; an account made later is a researcher unless told;
 * - `experiment_members`: who works on an experiment and as what (`owner`, `editor`, `analyst`), with
 *   whether an analyst's exports and packages are pseudonymized only. A member goes with their account
 *   and with the experiment.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("alter table admins add column role text not null default 'owner'");
  await db.raw("alter table admins alter column role set default 'researcher'");
  await db.raw("alter table admins add constraint admins_role_check check (role in ('owner', 'researcher'))");
  await db.schema.createTable("experiment_members", (t) => {
    t.uuid("experiment_id").notNullable().references("experiments.id").onDelete("CASCADE");
    t.uuid("admin_id").notNullable().references("admins.id").onDelete("CASCADE");
    t.text("role").notNullable();
    t.boolean("pseudonymized_only").notNullable().defaultTo(false);
    t.timestamp("added_at", { useTz: true }).notNullable();
    t.primary(["experiment_id", "admin_id"]);
    t.index(["admin_id"]);
  });
  await db.raw(
    "alter table experiment_members add constraint experiment_members_role_check check (role in ('owner', 'editor', 'analyst'))",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("experiment_members");
  await db.raw("alter table admins drop column if exists role");
}
