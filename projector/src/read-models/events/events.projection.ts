import type { Projection } from "../../read-model.ts";
import { eraseEvents } from "./events.erase.ts";
import { eventsMigrations } from "./events.migration.ts";

/**
 * The events store: every field of every event, payload as JSONB, and where its first copy sits in
 * the log. This row is also the gate of every other projection: they apply an event only at the
 * log place recorded here, so a repeated record never counts twice.
 */
export const eventsProjection: Projection = {
  name: "events",
  canHandle: "all",
  tables: ["events"],
  erase: eraseEvents,
  migrations: eventsMigrations,
  project: (e, place) => [
    {
      kind: "insert",
      table: "events",
      key: ["event_id"],
      row: {
        event_id: e.event_id,
        session_id: e.session_id,
        user_id: e.user_id,
        login_id: e.login_id,
        experiment_id: e.experiment_id,
        group_id: e.group_id,
        event_type: e.event_type,
        video_id: e.video_id,
        timestamp: e.timestamp,
        received_at: e.received_at,
        watch_ratio: e.watch_ratio,
        watch_duration: e.watch_duration,
        position_in_feed: e.position_in_feed,
        algorithm_feed: e.algorithm_feed,
        algorithm_watch: e.algorithm_watch,
        payload: { json: JSON.stringify(e.payload) },
        seq: e.seq,
        ui_feed: e.ui_feed,
        ui_watch: e.ui_watch,
        simulated: e.simulated === true,
        log_partition: place.partition,
        log_offset: place.offset,
      },
    },
  ],
};
