import type { Projection } from "../../read-model.ts";
import { implausibleTime } from "./client-clock.ts";
import { eraseSessionActivity } from "./session-activity.erase.ts";
import { sessionActivityMigrations } from "./session-activity.migration.ts";

export { timestampFlag } from "./client-clock.ts";

/**
 * The longest gap between two arrivals of a session's events that counts as time on the pages
 * (api.md "Trust boundaries (wave 4)"): a longer silence counts as this long.
 */
export const ARRIVAL_GAP_CAP_MS = 30_000;

/**
 * Session activity: first and last event times, event count, highest sequence number and how many
 * events carried one (their difference is the session's gaps), explicit end, and the client's clock:
 * its offset (the least arrival less client time) and the events with an implausible client time.
 * Whether a SESSION_END ended the session is read from it with `endedBySessionEnd`. Session time
 * (`session_time`): the server's view of the same session, from the arrival times alone.
 */
export const sessionActivityProjection: Projection = {
  name: "session_activity",
  canHandle: "all",
  tables: ["session_activity", "session_time"],
  erase: eraseSessionActivity,
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
          // The last unload's arrival and `seq`: the session ended there unless a later event exists.
          end_seq: e.event_type === "SESSION_END" ? e.seq : null,
          ended_at: e.event_type === "SESSION_END" ? e.received_at : null,
        },
      },
      {
        kind: "span",
        table: "session_time",
        key: { session_id: e.session_id },
        init: { user_id: e.user_id, experiment_id: e.experiment_id },
        at: e.received_at,
        gapMs: ARRIVAL_GAP_CAP_MS,
        columns: { runs: "arrival_runs", first: "first_received_at", last: "last_received_at" },
      },
    ];
  },
};
