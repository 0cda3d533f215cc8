import { deleteOwned } from "../../owned.ts";
import type { Projection } from "../../read-model.ts";
import { sessionActivityMigrations } from "./session-activity.migration.ts";

/**
 * A client time later than its arrival by more than this is in the future, and earlier than the
 * study's creation by more than this is before it (clocks a minute off are common).
 */
export const FUTURE_TOLERANCE_MS = 60_000;
/** A client time earlier than its arrival by more than this is implausible (the runtime sends within minutes). */
export const STALE_TOLERANCE_MS = 24 * 3_600_000;

/** A client time that cannot be right: in the future of its arrival, or a day or more before it. */
export function implausibleTime(offsetMs: number): boolean {
  return offsetMs < -FUTURE_TOLERANCE_MS || offsetMs > STALE_TOLERANCE_MS;
}

/** Why an event's client time cannot be right, or null (docs/events.md, "Client clocks"). */
export function timestampFlag(
  clientMs: number,
  receivedMs: number,
  studyCreatedMs: number,
): "future" | "before_study" | "stale" | null {
  if (clientMs - receivedMs > FUTURE_TOLERANCE_MS) return "future";
  if (clientMs < studyCreatedMs - FUTURE_TOLERANCE_MS) return "before_study";
  if (receivedMs - clientMs > STALE_TOLERANCE_MS) return "stale";
  return null;
}

/**
 * Session activity: first and last event times, event count, highest sequence number and how many
 * events carried one (their difference is the session's gaps), explicit end, and the client's clock:
 * its offset (the least arrival less client time) and the events with an implausible client time.
 */
export const sessionActivityProjection: Projection = {
  name: "session_activity",
  tables: ["session_activity"],
  erase: (sql, userIds) => deleteOwned(sql, "session_activity", userIds),
  migrations: sessionActivityMigrations,
  project: (e) => {
    const offset = Date.parse(e.received_at) - Date.parse(e.timestamp);
    return [
      {
        kind: "accumulate",
        table: "session_activity",
        key: { session_id: e.session_id },
        init: { user_id: e.user_id, experiment_id: e.experiment_id },
        add: {
          event_count: 1,
          seq_count: e.seq === null ? 0 : 1,
          implausible_times: implausibleTime(offset) ? 1 : 0,
        },
        min: { first_event_at: e.timestamp, clock_offset_ms: offset },
        max: {
          last_event_at: e.timestamp,
          last_received_at: e.received_at,
          max_seq: e.seq,
          ended_at: e.event_type === "SESSION_END" ? e.received_at : null,
        },
      },
    ];
  },
};
