import { createHash, randomBytes } from "node:crypto";
import type { AccountRole } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { Knex } from "knex";
import { isUniqueViolation } from "../db/present.ts";
import type { AdminPrincipal, ParticipantPrincipal, Principal } from "../http/context.ts";
import { conflict, forbidden, notFound } from "../http/errors.ts";
import { TtlCache } from "../system/ttl-cache.ts";
import { DUMMY_HASH, generatePassword, hashPassword, verifyPassword } from "./passwords.ts";

/** Lifetime of an admin session cookie. */
const ADMIN_SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
/** Lifetime of a participant cookie: long enough for multi-week studies. */
const PARTICIPANT_SESSION_TTL_MS = 180 * 24 * 3600 * 1000;

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

export interface AuthServiceDeps {
  readonly db: Db;
  readonly newId: () => string;
  readonly now: () => Date;
}

/**
 * How long a resolved admin cookie is remembered in-process by default. A logout clears it here at
 * once; other processes stop accepting the revoked cookie within this time.
 */
const RESOLVE_CACHE_MS = 5000;
/**
 * How long a resolved participant cookie is remembered by default. A participant's cookie ends only
 * with their erasure, which every process hears of on the change bus and drops at once; this bounds
 * it where a notification was lost. (A participant waiting for their arm is never kept.) Every event
 * batch resolves its cookie: a longer life saves the API a query on most batches.
 */
const PARTICIPANT_RESOLVE_CACHE_MS = 30_000;

/**
 * Admin accounts and the database-backed sessions behind both cookies. Only a SHA-256 of each
 * random token is stored, so a database dump does not hold usable credentials.
 *
 * `resolveCacheMs`: how long a resolved cookie is remembered (default 5 s for an admin's, 30 s for a
 * participant's). Longer only where this process makes every change that revokes one (the embedded
 * database: one process).
 */
export function createAuthService(
  { db, newId, now }: AuthServiceDeps,
  { resolveCacheMs }: { resolveCacheMs?: number } = {},
) {
  const resolved = new TtlCache<{ principal: Principal; expiresAt: number }>({
    ttlMs: resolveCacheMs ?? RESOLVE_CACHE_MS,
    ttlOf: (found) =>
      resolveCacheMs ??
      (found.principal.role === "participant" ? PARTICIPANT_RESOLVE_CACHE_MS : RESOLVE_CACHE_MS),
    max: 50_000,
  });

  async function issue(
    subject: { role: "admin"; adminId: string } | { role: "participant"; userId: string },
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString("base64url");
    const ttl = subject.role === "admin" ? ADMIN_SESSION_TTL_MS : PARTICIPANT_SESSION_TTL_MS;
    const expiresAt = new Date(now().getTime() + ttl);
    await db("auth_sessions").insert({
      token_hash: sha256(token),
      role: subject.role,
      admin_id: subject.role === "admin" ? subject.adminId : null,
      user_id: subject.role === "participant" ? subject.userId : null,
      created_at: now(),
      expires_at: expiresAt,
    });
    return { token, expiresAt };
  }

  return {
    async adminCount(): Promise<number> {
      const row = await db("admins").count<{ n: string | number }[]>({ n: "*" }).first();
      return Number(row?.n ?? 0);
    },

    /** Makes an account (the first one, the CLI's and the console's all come here). */
    async createAdmin(
      username: string,
      password: string,
      role: AccountRole,
    ): Promise<{ id: string; username: string; role: AccountRole; created_at: string }> {
      const id = newId();
      const at = now();
      await db("admins").insert({
        id,
        username,
        role,
        password_hash: await hashPassword(password),
        created_at: at,
      });
      return { id, username, role, created_at: at.toISOString() };
    },

    async setAdminPassword(username: string, password: string): Promise<boolean> {
      const n = await db("admins")
        .where({ username })
        .update({ password_hash: await hashPassword(password) });
      return n > 0;
    },

    /** Every admin, oldest first (never their password hashes). */
    async listAdmins(): Promise<{ username: string; role: AccountRole; created_at: string }[]> {
      const rows = (await db("admins")
        .orderBy("created_at")
        .orderBy("username")
        .select("username", "role", "created_at")) as {
        username: string;
        role: AccountRole;
        created_at: Date;
      }[];
      return rows.map((r) => ({
        username: r.username,
        role: r.role,
        created_at: new Date(r.created_at).toISOString(),
      }));
    },

    /**
     * Adds an account; a username taken -> 409 duplicate_username (the unique index decides). Without
     * a password one is generated and answered this once.
     */
    async addAdmin(
      username: string,
      password: string | undefined,
      role: AccountRole,
    ): Promise<{ username: string; role: AccountRole; created_at: string; password?: string }> {
      const secret = password ?? generatePassword();
      try {
        const { created_at } = await this.createAdmin(username, secret, role);
        return { username, role, created_at, ...(password === undefined ? { password: secret } : {}) };
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict("duplicate_username", `An admin named “${username}” already exists.`);
        throw err;
      }
    },

    /**
     * Changes an account's role; the last owner stays one (409 last_owner). Under the lock removals
     * take, so two owners demoting each other at once cannot leave none. Sessions signed in already
     * have the new role on their next request.
     */
    async setAdminRole(
      username: string,
      role: AccountRole,
    ): Promise<{ username: string; role: AccountRole }> {
      await db.transaction(async (trx) => {
        const all = await lockedAccounts(trx);
        const target = all.find((a) => a.username === username);
        if (!target) throw notFound("admin");
        if (role !== "owner" && isLastOwner(all, target))
          throw conflict("last_owner", "This is the last owner: make another account an owner first.");
        await trx("admins").where({ id: target.id }).update({ role });
      });
      resolved.clear();
      return { username, role };
    },

    /**
     * Removes an account and ends their sessions; never the only one (409 last_admin) nor the last
     * owner (409 last_owner), under a lock so two owners removing each other at once cannot leave none.
     */
    async removeAdmin(username: string): Promise<void> {
      await db.transaction(async (trx) => {
        const all = await lockedAccounts(trx);
        const target = all.find((a) => a.username === username);
        if (!target) throw notFound("admin");
        if (all.length === 1)
          throw conflict("last_admin", "This is the only admin: add another before removing it.");
        if (isLastOwner(all, target))
          throw conflict("last_owner", "This is the last owner: make another account an owner first.");
        await trx("admins").where({ id: target.id }).delete();
      });
      resolved.clear();
    },

    /** An account's role now (null: no such account), never cached, so a change shows at once. */
    async roleOf(adminId: string): Promise<AccountRole | null> {
      const row = (await db("admins").where({ id: adminId }).first("role")) as
        | { role: AccountRole }
        | undefined;
      return row?.role ?? null;
    },

    /**
     * Changes the signed-in admin's password after checking the current one (403 wrong_password), and
     * ends their other sessions (all but the one of `keepToken`, the request's cookie).
     */
    async changePassword(adminId: string, current: string, next: string, keepToken?: string): Promise<void> {
      const row = (await db("admins").where({ id: adminId }).first("password_hash")) as
        | { password_hash: string }
        | undefined;
      const ok = await verifyPassword(current, row?.password_hash ?? DUMMY_HASH);
      if (!row || !ok) throw forbidden("wrong_password", "The current password is not right.");
      await db("admins")
        .where({ id: adminId })
        .update({ password_hash: await hashPassword(next) });
      const others = db("auth_sessions").where({ admin_id: adminId });
      if (keepToken) others.whereNot({ token_hash: sha256(keepToken) });
      await others.delete();
      resolved.clear();
    },

    async adminExists(username: string): Promise<boolean> {
      return (await db("admins").where({ username }).first("id")) !== undefined;
    },

    /** Checks credentials; spends a full hash even for unknown usernames so timing reveals nothing. */
    async verifyAdmin(username: string, password: string): Promise<AdminPrincipal | null> {
      const row = await db("admins")
        .where({ username })
        .first<{ id: string; username: string; password_hash: string }>();
      const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
      return row && ok ? { role: "admin", adminId: row.id, username: row.username } : null;
    },

    issueAdminSession: (adminId: string) => issue({ role: "admin", adminId }),
    issueParticipantSession: (userId: string) => issue({ role: "participant", userId }),

    async revoke(token: string): Promise<void> {
      const hash = sha256(token);
      await db("auth_sessions").where({ token_hash: hash }).delete();
      resolved.delete(hash);
    },

    /** Resolves a cookie token to its principal, or null when unknown or expired. */
    async resolve(token: string): Promise<Principal | null> {
      const hash = sha256(token);
      const found = await resolved.fetch(hash, async () => (await lookup(hash)) ?? undefined);
      // A participant waiting for their arm is read again next time: the pre survey's answer assigns them.
      if (found?.principal.role === "participant" && found.principal.groupId === null) resolved.delete(hash);
      return found && found.expiresAt > now().getTime() ? found.principal : null;
    },

    /** Forgets every resolved cookie (participants were erased: their cookies must answer 401 now). */
    forgetResolved(): void {
      resolved.clear();
    },

    async purgeExpired(): Promise<number> {
      return db("auth_sessions").where("expires_at", "<=", now()).delete();
    },
  };

  async function lookup(hash: string): Promise<{ principal: Principal; expiresAt: number } | null> {
    const row = await db("auth_sessions as s")
      .leftJoin("admins as a", "a.id", "s.admin_id")
      .leftJoin("users as u", "u.id", "s.user_id")
      .where("s.token_hash", hash)
      .where("s.expires_at", ">", now())
      .first<{
        expires_at: Date;
        role: string;
        admin_id: string | null;
        username: string | null;
        user_id: string | null;
        login_id: string | null;
        experiment_id: string | null;
        group_id: string | null;
      }>(
        "s.role",
        "s.expires_at",
        "s.admin_id",
        "a.username",
        "s.user_id",
        "u.login_id",
        "u.experiment_id",
        "u.group_id",
      );
    if (!row) return null;
    const expiresAt = new Date(row.expires_at).getTime();
    if (row.role === "admin" && row.admin_id && row.username) {
      return { principal: { role: "admin", adminId: row.admin_id, username: row.username }, expiresAt };
    }
    if (row.role === "participant" && row.user_id && row.login_id && row.experiment_id) {
      const p: ParticipantPrincipal = {
        role: "participant",
        userId: row.user_id,
        loginId: row.login_id,
        experimentId: row.experiment_id,
        groupId: row.group_id,
      };
      return { principal: p, expiresAt };
    }
    return null;
  }
}

type Account = { id: string; username: string; role: AccountRole };

/** Every account, locked for the transaction (FOR UPDATE): the last-owner checks read them all. */
async function lockedAccounts(trx: Knex.Transaction): Promise<Account[]> {
  return (await trx("admins").forUpdate().select("id", "username", "role")) as Account[];
}

const isLastOwner = (all: readonly Account[], target: Account) =>
  target.role === "owner" && all.filter((a) => a.role === "owner").length === 1;

export type AuthService = ReturnType<typeof createAuthService>;
