import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../db/db.ts";
import type { AdminPrincipal, ParticipantPrincipal, Principal } from "../http/context.ts";
import { TtlCache } from "../system/ttl-cache.ts";
import { DUMMY_HASH, hashPassword, verifyPassword } from "./passwords.ts";

/** Lifetime of an admin session cookie. */
export const ADMIN_SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
/** Lifetime of a participant cookie: long enough for multi-week studies. */
export const PARTICIPANT_SESSION_TTL_MS = 180 * 24 * 3600 * 1000;

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

export interface AuthServiceDeps {
  readonly db: Db;
  readonly newId: () => string;
  readonly now: () => Date;
}

/**
 * Admin accounts and the database-backed sessions behind both cookies. Only a SHA-256 of each
 * random token is stored, so a database dump does not hold usable credentials.
 */
/**
 * How long a resolved cookie is remembered in-process. A logout clears it here at once; other
 * processes stop accepting the revoked cookie within this time.
 */
const RESOLVE_CACHE_MS = 5000;

export function createAuthService({ db, newId, now }: AuthServiceDeps) {
  const resolved = new TtlCache<{ principal: Principal; expiresAt: number }>({
    ttlMs: RESOLVE_CACHE_MS,
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

    async createAdmin(username: string, password: string): Promise<{ id: string; username: string }> {
      const id = newId();
      await db("admins").insert({
        id,
        username,
        password_hash: await hashPassword(password),
        created_at: now(),
      });
      return { id, username };
    },

    async setAdminPassword(username: string, password: string): Promise<boolean> {
      const n = await db("admins")
        .where({ username })
        .update({ password_hash: await hashPassword(password) });
      return n > 0;
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
      await db("auth_sessions")
        .where({ token_hash: sha256(token) })
        .delete();
    },

    /** Resolves a cookie token to its principal, or null when unknown or expired. */
    async resolve(token: string): Promise<Principal | null> {
      const hash = sha256(token);
      const cached = resolved.get(hash);
      if (cached && cached.expiresAt > now().getTime()) return cached.principal;
      const principal = await lookup(hash);
      if (principal) resolved.set(hash, { principal: principal.principal, expiresAt: principal.expiresAt });
      return principal?.principal ?? null;
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
    if (row.role === "participant" && row.user_id && row.login_id && row.experiment_id && row.group_id) {
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

export type AuthService = ReturnType<typeof createAuthService>;
