import type { AuditEntry } from "@feedlab/schemas";
import type { Knex } from "knex";
import type { ServiceDeps } from "../deps.ts";

interface AuditRow {
  seq: string | number;
  at: Date;
  admin: string | null;
  action: string;
  target: string | null;
  details: unknown;
}

/** The audit log of admin actions: appended as they happen, read newest first. */
export function createAuditService({ db, now }: ServiceDeps) {
  return {
    /** Appends an entry; `via` writes it in the caller's transaction (an erasure and its record commit together). */
    async record(entry: Omit<AuditEntry, "at" | "cursor">, via?: Knex.Transaction): Promise<void> {
      await (via ?? db)("audit_log").insert({
        at: now(),
        admin: entry.admin,
        action: entry.action,
        target: entry.target,
        details: JSON.stringify(entry.details),
      });
    },

    /** Newest first; `before` (an entry's `cursor`) pages further back. */
    async list(options: { limit: number; before?: number }): Promise<{ entries: AuditEntry[] }> {
      const q = db<AuditRow>("audit_log").orderBy("seq", "desc").limit(options.limit);
      if (options.before !== undefined) q.where("seq", "<", options.before);
      const rows = (await q) as AuditRow[];
      return {
        entries: rows.map((r) => ({
          cursor: Number(r.seq),
          at: new Date(r.at).toISOString(),
          admin: r.admin,
          action: r.action,
          target: r.target,
          details: (typeof r.details === "string" ? JSON.parse(r.details) : r.details) as Record<
            string,
            unknown
          >,
        })),
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
