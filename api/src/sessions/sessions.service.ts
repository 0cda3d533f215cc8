import { sessionActivity } from "@feedlab/projector";
import { iso, isoOrNull, isUniqueViolation } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { forbidden, notFound } from "../http/errors.ts";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  ended_at: Date | null;
}

const presentSession = (r: SessionRow) => ({
  session_id: r.id,
  user_id: r.user_id,
  created_at: iso(r.created_at),
  ended_at: isoOrNull(r.ended_at),
});

export type SessionRecord = ReturnType<typeof presentSession>;

/** A session's state with the reason it ended (explicit end, a SESSION_END event, or idleness). */
export interface SessionState {
  readonly session_id: string;
  readonly user_id: string;
  readonly created_at: string;
  readonly ended_at: string | null;
  readonly last_event_at: string | null;
  readonly event_count: number;
  readonly state: "active" | "ended";
  readonly ended_by: "request" | "session_end_event" | "idle" | null;
}

export interface SessionsServiceDeps extends ServiceDeps {
  /** A session with no events for this long counts as ended (default 30 minutes). */
  readonly idleMs?: number;
}

export function createSessionsService({ db, now, idleMs = 30 * 60 * 1000 }: SessionsServiceDeps) {
  /** The session, which must belong to the user: unknown -> 404, another participant's -> 403. */
  async function owned(sessionId: string, userId: string): Promise<SessionRow> {
    const row = await db<SessionRow>("sessions").where({ id: sessionId }).first();
    if (!row) throw notFound("session");
    if (row.user_id !== userId)
      throw forbidden("foreign_session", "This session belongs to another participant.");
    return row;
  }

  return {
    owned,

    /** Registers a client-generated session id: created (201), or the same again by its owner (200). */
    async register(sessionId: string, userId: string): Promise<{ created: boolean; session: SessionRecord }> {
      const row: SessionRow = { id: sessionId, user_id: userId, created_at: now(), ended_at: null };
      try {
        const inserted = await db("sessions").insert(row).onConflict("id").ignore().returning("id");
        if (inserted.length > 0) return { created: true, session: presentSession(row) };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      return { created: false, session: presentSession(await owned(sessionId, userId)) };
    },

    /**
     * The session's state: ended by `POST /sessions/{id}/end`, by a SESSION_END event, or
     * implicitly when no event arrived for the idle timeout (spec: "No further events arrive").
     */
    async state(sessionId: string, userId: string): Promise<SessionState> {
      const row = await owned(sessionId, userId);
      const activity = await sessionActivity(db, sessionId);
      const lastSeen = activity?.last_received_at ?? row.created_at;
      const idle = now().getTime() - new Date(lastSeen).getTime() > idleMs;
      const endedBy = row.ended_at
        ? "request"
        : activity?.ended_at
          ? "session_end_event"
          : idle
            ? "idle"
            : null;
      const endedAt =
        row.ended_at ?? activity?.ended_at ?? (idle ? new Date(new Date(lastSeen).getTime() + idleMs) : null);
      return {
        ...presentSession(row),
        ended_at: isoOrNull(endedAt),
        last_event_at: isoOrNull(activity?.last_received_at ?? null),
        event_count: Number(activity?.event_count ?? 0),
        state: endedBy ? "ended" : "active",
        ended_by: endedBy,
      };
    },

    /** Ends a session explicitly; ending it again keeps the first end time. */
    async end(sessionId: string, userId: string): Promise<SessionRecord> {
      const row = await owned(sessionId, userId);
      if (row.ended_at) return presentSession(row);
      const [updated] = (await db("sessions")
        .where({ id: sessionId })
        .update({ ended_at: now() })
        .returning("*")) as SessionRow[];
      return presentSession(updated ?? row);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
