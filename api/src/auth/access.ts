import type { AccountRole, LeastRole, MemberRole } from "@feedlab/schemas";
import { memberMay } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { Access, AppContext } from "../http/context.ts";
import { HttpError, notFound, unauthorized } from "../http/errors.ts";
import type { RoleCheck, ScopeKind } from "../http/route.ts";

/** Each resource under an experiment: the table holding its experiment, and its 404 (errors.ts). */
const RESOURCES: Readonly<Record<ScopeKind, { table: string; column: string; noun?: string }>> = {
  experiment: { table: "experiments", column: "id" },
  group: { table: "groups", column: "experiment_id", noun: "arm" },
  survey: { table: "surveys", column: "experiment_id" },
  participant: { table: "users", column: "experiment_id" },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LABEL: Readonly<Record<LeastRole, string>> = {
  researcher: "any account",
  analyst: "an analyst of this experiment or more",
  editor: "an editor of this experiment or more",
  study_owner: "an owner of this experiment",
  owner: "an account owner",
};

const forbiddenRole = (needed: LeastRole) =>
  new HttpError(403, "forbidden_role", `This needs ${LABEL[needed]}.`, { needed });

interface AccessRow {
  account_role: AccountRole;
  experiment_id: string | null;
  member_role: MemberRole | null;
  pseudonymized_only: boolean | null;
}

/**
 * The role check of every admin route (route.ts runs it after the path's parameters, before the
 * body): one query reads the account's role now (a change applies at once, to sessions already signed
 * in) and, on a path under an experiment, the experiment the resource belongs to and the account's
 * membership of it. Account owners pass everything (a resource that does not exist is then the
 * handler's 404). A researcher who is not a member of the experiment gets the 404 the handler would
 * give for a resource that does not exist; a member whose role is too weak, 403 `forbidden_role`.
 * What it found is kept on the request (`accessOf`) for lists and exports.
 */
export function createAccessCheck(db: Db) {
  async function read(adminId: string, scope: RoleCheck["scope"]): Promise<AccessRow | undefined> {
    if (!scope) {
      return (await db("admins").where({ id: adminId }).first({ account_role: "role" })) as
        | AccessRow
        | undefined;
    }
    const { table, column } = RESOURCES[scope.kind];
    const found = await db.raw(
      `select a.role as account_role, r.experiment_id, m.role as member_role, m.pseudonymized_only
         from admins a
         left join (select ${column} as experiment_id from ${table} where id = ?) r on true
         left join experiment_members m on m.experiment_id = r.experiment_id and m.admin_id = a.id
        where a.id = ?`,
      [scope.id, adminId],
    );
    return (found.rows as AccessRow[])[0];
  }

  return async (ctx: AppContext, check: RoleCheck): Promise<void> => {
    const principal = ctx.state.principal;
    if (principal?.role !== "admin") throw unauthorized("Sign in as an admin first.");
    const { scope, needed } = check;
    const resource = scope ? RESOURCES[scope.kind] : null;
    const missing = () => notFound(scope?.kind ?? "resource", resource?.noun);
    if (scope && !UUID.test(scope.id)) throw missing();
    const row = await read(principal.adminId, scope);
    // The account was removed while signed in: its sessions went with it.
    if (!row) throw unauthorized("Sign in as an admin first.");
    const member = row.member_role
      ? { role: row.member_role, pseudonymizedOnly: row.pseudonymized_only === true }
      : null;
    ctx.state.access = { adminId: principal.adminId, accountRole: row.account_role, member };
    if (row.account_role === "owner") return;
    if (needed === "owner") throw forbiddenRole(needed);
    if (!scope) return;
    if (!member) throw missing();
    if (!memberMay(member.role, needed)) throw forbiddenRole(needed);
  };
}

/** What the role check found for the request (an admin route's handler runs only after it). */
export function accessOf(ctx: AppContext): Access {
  const access = ctx.state.access;
  if (!access) throw unauthorized("Sign in as an admin first.");
  return access;
}

/**
 * A member whose exports of the experiment are pseudonymized only (api.md "Teams") gets 403
 * `pseudonymized_only` for an answer that names participants (the raw exports); the replication
 * package, pseudonymized for them, holds the same tables.
 */
export function refuseIdentities(ctx: AppContext): void {
  if (pseudonymizedOnly(ctx))
    throw new HttpError(
      403,
      "pseudonymized_only",
      "Your exports of this experiment are pseudonymized only: download the replication package, which holds these tables with pseudonyms.",
    );
}

/** Whether the request's account may have this experiment's data pseudonymized only (never an account owner). */
export function pseudonymizedOnly(ctx: AppContext): boolean {
  const access = ctx.state.access;
  return access?.accountRole !== "owner" && access?.member?.pseudonymizedOnly === true;
}
