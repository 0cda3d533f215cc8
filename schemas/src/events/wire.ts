import { type Static, Type } from "@sinclair/typebox";
import { Uuid } from "../http/common.ts";
import type { Payloads } from "./payloads.ts";
import type { EventType } from "./types.ts";

/** Largest batch one request may carry (the client flushes at 20 or 50; unload may send more). */
const MAX_BATCH_EVENTS = 500;
/** Largest JSON size of one event's payload, in characters. */
export const MAX_PAYLOAD_CHARS = 64 * 1024;
/** Deepest nesting of a payload. */
export const MAX_PAYLOAD_DEPTH = 16;
/** Bounds of the promoted numeric columns, wherever their value comes from (the envelope or the payload). */
export const WATCH_RATIO_MAX = 100;
export const WATCH_DURATION_MAX_S = 1e7;

/**
 * The wire format of one event (spec: "Wire format of one event") plus api.md's `event_id` and the
 * client's per-session sequence number `seq` (lets the server measure loss). `payload` is checked
 * against the type's schema separately, so that a rejection can name the field.
 */
export const WireEventEnvelope = Type.Object(
  {
    event_id: Uuid,
    event_type: Type.String({ minLength: 1, maxLength: 64 }),
    video_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    timestamp: Type.String({ format: "date-time" }),
    watch_ratio: Type.Optional(Type.Number({ minimum: 0, maximum: WATCH_RATIO_MAX })),
    watch_duration: Type.Optional(Type.Number({ minimum: 0, maximum: WATCH_DURATION_MAX_S })),
    position_in_feed: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e6 })),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true })),
    seq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);

/** One event as the browser sends it, discriminated by `event_type`. */
export type WireEvent = {
  [K in EventType]: Omit<Static<typeof WireEventEnvelope>, "event_type" | "payload"> & {
    event_type: K;
    payload?: Payloads[K];
  };
}[EventType];

/** `POST /api/v1/events` body. Events are checked one by one; the envelope is checked as a whole. */
export const EventBatch = Type.Object(
  {
    session_id: Uuid,
    events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH_EVENTS }),
  },
  { additionalProperties: false },
);
export type EventBatch = Static<typeof EventBatch>;

export const EventRejection = Type.Object({
  index: Type.Integer(),
  code: Type.String(),
  message: Type.String(),
  field: Type.Optional(Type.String()),
});
export type EventRejection = Static<typeof EventRejection>;

export const EventBatchResult = Type.Object({
  accepted: Type.Integer({ description: "Events accepted (a repeated event_id counts, and is stored once)" }),
  rejected: Type.Array(EventRejection),
  position: Type.String({
    description: "Opaque token of the log position; pass as ?after= to read your writes",
  }),
});
export type EventBatchResult = Static<typeof EventBatchResult>;

/**
 * An event as the log records it: the wire event stamped by the server with who sent it, the
 * experiment and group, the recommender keys in force for each page, and when it arrived.
 */
export interface LoggedEvent {
  readonly event_id: string;
  readonly session_id: string;
  readonly user_id: string;
  readonly login_id: string;
  readonly experiment_id: string;
  /**
   * The participant's arm; null before they have one (a study that assigns on the pre survey's answer:
   * api.md "Assignment (wave 4)"). On the wire's Avro record, an empty string.
   */
  readonly group_id: string | null;
  readonly event_type: EventType;
  /** External video id (spec: Event record). */
  readonly video_id: string | null;
  /** Client clock, ISO 8601 UTC. */
  readonly timestamp: string;
  /** Server clock, ISO 8601 UTC. */
  readonly received_at: string;
  readonly watch_ratio: number | null;
  readonly watch_duration: number | null;
  readonly position_in_feed: number | null;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly seq: number | null;
  /**
   * The UI in force for each page when the event arrived: a preset key, `none`, or
   * `<template id>@<version>`; null on events logged before release 0.2 recorded it.
   */
  readonly ui_feed: string | null;
  readonly ui_watch: string | null;
  /**
   * A simulated participant's event (a dry run, issue 36). Absent means false: records written
   * before revision 3 decode as false, and code that builds events for real participants leaves it out.
   */
  readonly simulated?: boolean;
}
