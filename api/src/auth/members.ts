import type { Member, MemberRole } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { Knex } from "knex";
import type { Access } from "../http/context.ts";
import { conflict, notFound, validationFailed } from "../http/errors.ts";

interface MemberRow {
  username: string;
  role: MemberRole;
  pseudonymized_only: boolean;
}

const RANK: Readonly<Record<MemberRole, number>> = { owner: 0, editor: 1, analyst: 2 };

/**
 * Makes an account the owner of an experiment it just created, in the creation's transaction (api.md:
 * "the account that creates an experiment is its owner").
 */
export async function addExperimentOwner(
  db: Db | Knex.Transaction,
  experimentId: string,
  adminId: string,
  at: Date,
): Promise<void> {
  await db("experiment_members")
    .insert({ experiment_id: experimentId, admin_id: adminId, role: "owner", added_at: at })
    .onConflict(["experiment_id", "admin_id"])
    .merge({ role: "owner" });
}

/** Who works on each experiment and as what (api.md "Teams"): read, replaced whole, and asked of. */
export function createMembersService({ db, now }: { db: Db; now: () => Date }) {
  async function list(experimentId: string, via: Db | Knex.Transaction = db): Promise<Member[]> {
    const rows = (await via("experiment_members as m")
      .join("admins as a", "a.id", "m.admin_id")
      .where("m.experiment_id", experimentId)
      .select("a.username", "m.role", "m.pseudonymized_only")) as MemberRow[];
    return rows
      .sort((a, b) => RANK[a.role] - RANK[b.role] || a.username.localeCompare(b.username))
      .map((r) => ({ username: r.username, role: r.role, pseudonymized_only: r.pseudonymized_only }));
  }

  return {
    list: (experimentId: string) => list(experimentId),

    /**
     * Replaces an experiment's members with `members` and answers the new list: every username must
     * name an account, once (422 `validation_failed` naming the entry), and one member at least must be
     * its owner (409 `last_owner`). Nothing changes when it refuses.
     */
    async replace(experimentId: string, members: readonly Member[]): Promise<Member[]> {
      const seen = new Set<string>();
      members.forEach((m, i) => {
        if (seen.has(m.username))
          throw validationFailed([{ field: `/${i}/username`, message: `names ${m.username} twice` }]);
        seen.add(m.username);
      });
      if (!members.some((m) => m.role === "owner"))
        throw conflict(
          "last_owner",
          "An experiment keeps at least one owner: make another member its owner first.",
        );
      return db.transaction(async (trx) => {
        // One change of an experiment's members at a time, and none once it is gone.
        const experiment = await trx("experiments").where({ id: experimentId }).forUpdate().first("id");
        if (!experiment) throw notFound("experiment");
        const accounts = (await trx("admins")
          .whereIn(
            "username",
            members.map((m) => m.username),
          )
          .select("id", "username")) as { id: string; username: string }[];
        const idOf = new Map(accounts.map((a) => [a.username, a.id]));
        members.forEach((m, i) => {
          if (!idOf.has(m.username))
            throw validationFailed([
              { field: `/${i}/username`, message: `names no account (${m.username})` },
            ]);
        });
        const before = new Map(
          (
            (await trx("experiment_members")
              .where({ experiment_id: experimentId })
              .select("admin_id", "added_at")) as { admin_id: string; added_at: Date }[]
          ).map((r) => [r.admin_id, r.added_at]),
        );
        await trx("experiment_members").where({ experiment_id: experimentId }).delete();
        if (members.length > 0)
          await trx("experiment_members").insert(
            members.map((m) => {
              const adminId = idOf.get(m.username) as string;
              return {
                experiment_id: experimentId,
                admin_id: adminId,
                role: m.role,
                pseudonymized_only: m.pseudonymized_only === true,
                added_at: before.get(adminId) ?? now(),
              };
            }),
          );
        return list(experimentId, trx);
      });
    },

    /**
     * The experiments an account sees in lists (api.md "Teams"): those it is a member of, or null for
     * an account owner, who sees every one.
     */
    async visibleTo(access: Pick<Access, "adminId" | "accountRole">): Promise<string[] | null> {
      if (access.accountRole === "owner") return null;
      const rows = (await db("experiment_members")
        .where({ admin_id: access.adminId })
        .select("experiment_id")) as { experiment_id: string }[];
      return rows.map((r) => r.experiment_id);
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;

/**
 * Where a shared library item (a layout, a recommender, a video) is used, as an account may read it: the
 * uses in experiments it may see by name, the others only to be counted (api.md Teams: a non-member learns
 * nothing of an experiment).
 */
export function usesVisibleTo<T>(
  uses: readonly T[],
  visible: readonly string[] | null,
  experimentOf: (use: T) => string,
): { named: T[]; elsewhere: T[] } {
  if (visible === null) return { named: [...uses], elsewhere: [] };
  const seen = new Set(visible);
  const named: T[] = [];
  const elsewhere: T[] = [];
  for (const u of uses) (seen.has(experimentOf(u)) ? named : elsewhere).push(u);
  return { named, elsewhere };
}

/** A library item's answer with `used_by` narrowed to what the account may see, the rest in `used_elsewhere`. */
export function narrowUsedBy<T extends { used_by: readonly { experiment_id: string }[] }>(
  item: T,
  visible: readonly string[] | null,
): T & { used_elsewhere: number } {
  const { named, elsewhere } = usesVisibleTo(item.used_by, visible, (u) => u.experiment_id);
  return { ...item, used_by: named, used_elsewhere: elsewhere.length };
}
