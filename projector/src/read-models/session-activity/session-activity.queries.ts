import type { Sql } from "@feedlab/ingest";

export interface SessionActivity {
  readonly last_received_at: Date;
  readonly event_count: number;
  readonly ended_at: Date | null;
}

/** What the log says of a session so far: undefined when none of its events was projected yet. */
export async function sessionActivity(sql: Sql, sessionId: string): Promise<SessionActivity | undefined> {
  const row = (await sql("session_activity")
    .where({ session_id: sessionId })
    .first("last_received_at", "event_count", "ended_at")) as
    | { last_received_at: Date; event_count: number | string; ended_at: Date | null }
    | undefined;
  return row && { ...row, event_count: Number(row.event_count) };
}

/** One session's counts for data completeness. */
export interface SessionCompleteness {
  readonly session_id: string;
  readonly user_id: string;
  /** Every event of the session the log holds. */
  readonly events: number;
  /** The events that carried the client's `seq`. */
  readonly numbered: number;
  /** The gaps in the session's `seq`: its highest `seq` less the numbered events (never below 0). */
  readonly missing: number;
  readonly last_received_at: Date;
  /** The client clock's offset (least arrival less client time), null for a session from before 0.3. */
  readonly clock_offset_ms: number | null;
  /** Events whose client time was in the future of their arrival or a day or more before it. */
  readonly implausible_times: number;
}

/** Per session of an experiment: events, numbered events and gaps in `seq` (api.md: completeness). */
export async function sessionCompleteness(sql: Sql, experimentId: string): Promise<SessionCompleteness[]> {
  const rows = (await sql("session_activity")
    .where({ experiment_id: experimentId })
    .select(
      "session_id",
      "user_id",
      "event_count",
      "seq_count",
      "max_seq",
      "last_received_at",
      "clock_offset_ms",
      "implausible_times",
    )) as {
    session_id: string;
    user_id: string;
    event_count: number | string;
    seq_count: number | string;
    max_seq: number | string | null;
    last_received_at: Date;
    clock_offset_ms: number | string | null;
    implausible_times: number | string;
  }[];
  return rows.map((r) => {
    const numbered = Number(r.seq_count);
    return {
      session_id: r.session_id,
      user_id: r.user_id,
      events: Number(r.event_count),
      numbered,
      missing: r.max_seq === null ? 0 : Math.max(0, Number(r.max_seq) - numbered),
      last_received_at: new Date(r.last_received_at),
      clock_offset_ms: r.clock_offset_ms === null ? null : Number(r.clock_offset_ms),
      implausible_times: Number(r.implausible_times),
    };
  });
}

/**
 * Minutes a participant spent on the pages over all their sessions, as their events show it: per
 * session, the time from its first to its last event (a session whose tab stayed open without any
 * event counts only up to its last event).
 */
export async function participantMinutes(sql: Sql, userId: string): Promise<number> {
  const row = (await sql("session_activity")
    .where({ user_id: userId })
    .first(sql.raw("coalesce(sum(extract(epoch from (last_event_at - first_event_at))), 0) as seconds"))) as
    | { seconds: number | string }
    | undefined;
  return Number(row?.seconds ?? 0) / 60;
}
