import { randomUUID } from "node:crypto";
import type { LoggedEvent } from "@feedlab/schemas";

let n = 0;

/** A logged PAGE_LOAD of `sessionId`'s participant, each a millisecond and a `seq` after the one before. */
export function pageLoad(sessionId: string = randomUUID(), userId: string = randomUUID()): LoggedEvent {
  n++;
  return {
    event_id: randomUUID(),
    session_id: sessionId,
    user_id: userId,
    login_id: "p",
    experiment_id: randomUUID(),
    group_id: randomUUID(),
    event_type: "PAGE_LOAD",
    video_id: null,
    timestamp: new Date(Date.UTC(2026, 10, 24, 12, 0, 0, n)).toISOString(),
    received_at: new Date().toISOString(),
    watch_ratio: null,
    watch_duration: null,
    position_in_feed: null,
    algorithm_feed: "recency",
    algorithm_watch: "recency",
    payload: { url: "/", pageType: "feed" },
    seq: n,
    ui_feed: "grid-desktop",
    ui_watch: "none",
  };
}
