import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "./common.ts";

/** One event of the events store, as the trajectory and the export give it (api.md). */
export const StoredEvent = Type.Object({
  event_id: Uuid,
  session_id: Uuid,
  user_id: Uuid,
  login_id: Type.String(),
  group_id: Uuid,
  event_type: Type.String(),
  video_id: Type.Union([Type.String(), Type.Null()]),
  timestamp: Type.String(),
  received_at: Type.String(),
  watch_ratio: Type.Union([Type.Number(), Type.Null()]),
  watch_duration: Type.Union([Type.Number(), Type.Null()]),
  position_in_feed: Type.Union([Type.Integer(), Type.Null()]),
  algorithm_feed: Type.String(),
  algorithm_watch: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type StoredEvent = Static<typeof StoredEvent>;
