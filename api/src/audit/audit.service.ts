import type { AuditAction, AuditEntry } from "@feedlab/schemas";
import type { Knex } from "knex";
import type { ServiceDeps } from "../deps.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { loginIdsOf } from "../participants/queries/users.queries.ts";
import { type ArmState, armChanges, armState } from "./arm-changes.ts";
import { type Subject, subjectsOf } from "./audit.subjects.ts";

interface AuditRow {
  seq: string | number;
  at: Date;
  admin: string | null;
  action: string;
  target: string | null;
  details: unknown;
}

const detailsOf = (r: AuditRow): Record<string, unknown> =>
  (typeof r.details === "string" ? JSON.parse(r.details) : r.details) as Record<string, unknown>;

const subjectsIn = (details: Record<string, unknown>): Subject[] =>
  Array.isArray(details.about) ? (details.about as Subject[]) : [];

/** The audit log of admin actions: appended as they happen, read newest first. */
export function createAuditService({ db, now }: ServiceDeps) {
  /**
   * Names the participants of `entries` by their login id as it is now: looked up, never stored, so
   * the log keeps no login of an erased participant (their entries name them by id alone).
   */
  async function nameParticipants(entries: AuditEntry[]): Promise<void> {
    const ids = [
      ...new Set(
        entries.flatMap((e) =>
          subjectsIn(e.details)
            .filter((s) => s.kind === "participant")
            .map((s) => s.id),
        ),
      ),
    ];
    if (ids.length === 0) return;
    const logins = await loginIdsOf(db, ids);
    for (const e of entries) {
      const about = subjectsIn(e.details);
      if (!about.some((s) => s.kind === "participant")) continue;
      e.details.about = about.map((s) => {
        const login = s.kind === "participant" ? logins.get(s.id) : undefined;
        return login === undefined ? s : { ...s, name: login };
      });
    }
  }

  return {
    /** Appends an entry; `via` writes it in the caller's transaction (an erasure and its record commit together). */
    async record(
      entry: Omit<AuditEntry, "at" | "cursor" | "action"> & { readonly action: AuditAction },
      via?: Knex.Transaction,
    ): Promise<void> {
      await (via ?? db)("audit_log").insert({
        at: now(),
        admin: entry.admin,
        action: entry.action,
        target: entry.target,
        details: JSON.stringify(entry.details),
      });
    },

    /** What an action is about, named as things are called now (audit.subjects.ts). */
    subjects: (
      action: AuditAction,
      params: Readonly<Record<string, unknown>>,
      created: Readonly<Record<string, unknown>>,
    ): Promise<Subject[]> => subjectsOf(db, action, params, created),

    /** An arm's settings as the log compares them, or null when it is gone. */
    arm: (id: string): Promise<ArmState | null> => armState(db, id),

    /** An experiment's row as the log compares it before and after an update, or null when it is gone. */
    experiment: async (id: string): Promise<Record<string, unknown> | null> =>
      (await experimentRow<Record<string, unknown>>(db, id)) ?? null,

    /** The fields an arm's update changed, in words. */
    armChanges: (before: ArmState, after: ArmState) => armChanges(db, before, after),

    /**
     * Newest first; `before` (an entry's `cursor`) pages further back. Participants named in
     * `details.about` get their login id as their name while they exist.
     */
    async list(options: {
      limit: number;
      before?: number;
      /** Only the entries of this account and of these experiments (a researcher's view, api.md "Teams"). */
      visibleTo?: { readonly username: string; readonly experiments: readonly string[] };
    }): Promise<{ entries: AuditEntry[] }> {
      const q = db<AuditRow>("audit_log").orderBy("seq", "desc").limit(options.limit);
      if (options.before !== undefined) q.where("seq", "<", options.before);
      const visible = options.visibleTo;
      if (visible) {
        const ids = visible.experiments;
        q.where((w) => {
          w.where("admin", visible.username);
          if (ids.length > 0)
            w.orWhereRaw(
              `exists (select 1 from jsonb_array_elements(case when jsonb_typeof(details->'about') = 'array' then details->'about' else '[]'::jsonb end) s
                        where s->>'kind' = 'experiment' and s->>'id' in (${ids.map(() => "?").join(", ")}))`,
              [...ids],
            );
        });
      }
      const rows = (await q) as AuditRow[];
      const entries = rows.map((r) => ({
        cursor: Number(r.seq),
        at: new Date(r.at).toISOString(),
        admin: r.admin,
        action: r.action,
        target: r.target,
        details: detailsOf(r),
      }));
      await nameParticipants(entries);
      return { entries };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
