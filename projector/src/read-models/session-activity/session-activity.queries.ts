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
