import type { EventType, LoggedEvent } from "@feedlab/schemas";

/** Participants and an experiment of the projection tests, named so a reader can follow them. */
export const ALICE = "00000000-0000-4000-8000-00000000a11c";
export const BOB = "00000000-0000-4000-8000-000000000b0b";
export const EXPERIMENT = "00000000-0000-4000-8000-0000000e0001";

let n = 0;

/** A logged event as intake stamps it: Alice's, in her first session, at 12:00:00 unless told otherwise. */
export function logged(event_type: EventType, fields: Partial<LoggedEvent> = {}): LoggedEvent {
  n++;
  return {
    event_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    session_id: "00000000-0000-4000-8000-00000005e551",
    user_id: ALICE,
    login_id: "alice",
    experiment_id: EXPERIMENT,
    group_id: "00000000-0000-4000-8000-000000009001",
    event_type,
    video_id: null,
    timestamp: "2026-11-24T12:00:00.000Z",
    received_at: "2026-11-24T12:00:00.100Z",
    watch_ratio: null,
    watch_duration: null,
    position_in_feed: null,
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    payload: {},
    seq: null,
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
    ...fields,
  };
}

export const AT = { partition: 0, offset: 41 } as const;
