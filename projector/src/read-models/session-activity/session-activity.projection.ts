import { deleteOwned } from "../../owned.ts";
import type { Projection } from "../../read-model.ts";
import { sessionActivityMigrations } from "./session-activity.migration.ts";

/**
 * Session activity: first and last event times, event count, highest sequence number and how many
 * events carried one (their difference is the session's gaps), explicit end.
 */
export const sessionActivityProjection: Projection = {
  name: "session_activity",
  tables: ["session_activity"],
  erase: (sql, userIds) => deleteOwned(sql, "session_activity", userIds),
  migrations: sessionActivityMigrations,
  project: (e) => [
    {
      kind: "accumulate",
      table: "session_activity",
      key: { session_id: e.session_id },
      init: { user_id: e.user_id, experiment_id: e.experiment_id },
      add: { event_count: 1, seq_count: e.seq === null ? 0 : 1 },
      min: { first_event_at: e.timestamp },
      max: {
        last_event_at: e.timestamp,
        last_received_at: e.received_at,
        max_seq: e.seq,
        ended_at: e.event_type === "SESSION_END" ? e.received_at : null,
      },
    },
  ],
};
