import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "./common.ts";

/** One event of the events store, as the trajectory and the export give it (api.md). */
export const StoredEvent = Type.Object({
  event_id: Uuid,
  session_id: Uuid,
  user_id: Uuid,
  login_id: Type.String(),
  group_id: Type.Union([Uuid, Type.Null()], {
    description: "Null for an event sent before the participant had an arm (api.md, Assignment)",
  }),
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
  experiment_id: Uuid,
  group_name: Type.String({ description: "The group's name now (it may have been renamed since)" }),
  seq: Type.Union([Type.Integer(), Type.Null()], { description: "The client's per-session sequence number" }),
  ui_feed: Type.Union([Type.String(), Type.Null()], {
    description: "The feed page's UI when the event arrived: a preset key, none, or <template id>@<version>",
  }),
  ui_watch: Type.Union([Type.String(), Type.Null()], { description: "The watch page's UI, as ui_feed" }),
  timestamp_flag: Type.Union(
    [Type.Literal("future"), Type.Literal("before_study"), Type.Literal("stale"), Type.Null()],
    {
      description:
        "Why the client timestamp cannot be right: more than a minute after the event arrived (future), more than a minute before the experiment was created (before_study), or a day or more before it arrived (stale); null when plausible",
    },
  ),
});
export type StoredEvent = Static<typeof StoredEvent>;
