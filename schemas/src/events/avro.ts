import avro from "avsc";
import { isEventType } from "./types.ts";
import type { LoggedEvent } from "./wire.ts";

/**
 * The Avro record of a logged event: the value of every record in the event log (the embedded
 * log's table and the Kafka topic). Evolution rules (readers use the writer's schema, found by
 * fingerprint):
 * - New fields are added at the end WITH a default (usually `null` in a `["null", T]` union), so
 *   old records still decode with the new schema and old readers skip the new field.
 * - Fields are never removed or renamed, and their types never change; add a new field instead.
 * - `event_type` is a string, not an enum, so adding an event type needs no schema change.
 * - `payload` is JSON text: payload fields evolve freely with no schema change (spec: "Additions
 *   inside the event payload need no migration").
 * - A breaking change means a new contract version: a new topic (`feedlab.events.v2`).
 */
export const LOGGED_EVENT_SCHEMA = {
  type: "record",
  name: "LoggedEvent",
  namespace: "org.feedlab.events.v1",
  doc: "One interaction event, validated and stamped by Feedlab's ingest.",
  fields: [
    { name: "event_id", type: "string", doc: "Client-generated UUID; unique" },
    { name: "session_id", type: "string" },
    { name: "user_id", type: "string" },
    { name: "login_id", type: "string" },
    { name: "experiment_id", type: "string" },
    { name: "group_id", type: "string" },
    { name: "event_type", type: "string", doc: "One of the 33 types" },
    { name: "video_id", type: ["null", "string"], default: null, doc: "External video id" },
    { name: "timestamp", type: { type: "long", logicalType: "timestamp-millis" }, doc: "Client clock" },
    { name: "received_at", type: { type: "long", logicalType: "timestamp-millis" }, doc: "Server clock" },
    { name: "watch_ratio", type: ["null", "double"], default: null },
    { name: "watch_duration", type: ["null", "double"], default: null },
    { name: "position_in_feed", type: ["null", "int"], default: null },
    { name: "algorithm_feed", type: "string" },
    { name: "algorithm_watch", type: "string" },
    { name: "payload", type: "string", doc: "JSON object text" },
    { name: "seq", type: ["null", "long"], default: null, doc: "Client per-session sequence number" },
  ],
} as const;

// Timestamps travel as epoch milliseconds (the logical type documents it for other readers).
const type = avro.Type.forSchema(LOGGED_EVENT_SCHEMA as unknown as avro.Schema);

/** Hex SHA-256 fingerprint of the schema's canonical form (sent as a Kafka header). */
export const LOGGED_EVENT_FINGERPRINT = type.fingerprint("sha256").toString("hex");

/** Encodes a logged event as an Avro binary record. */
export function encodeLoggedEvent(e: LoggedEvent): Buffer {
  return type.toBuffer({
    ...e,
    timestamp: Date.parse(e.timestamp),
    received_at: Date.parse(e.received_at),
    payload: JSON.stringify(e.payload),
  });
}

/** Decodes an Avro record; throws on bytes that are not a LoggedEvent. */
export function decodeLoggedEvent(buf: Buffer | Uint8Array): LoggedEvent {
  const r = type.fromBuffer(Buffer.isBuffer(buf) ? buf : Buffer.from(buf)) as Omit<
    LoggedEvent,
    "timestamp" | "received_at" | "payload"
  > & {
    timestamp: number;
    received_at: number;
    payload: string;
  };
  if (!isEventType(r.event_type)) throw new Error(`unknown event_type "${r.event_type}" in the log`);
  const payload = JSON.parse(r.payload) as unknown;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload))
    throw new Error("payload is not a JSON object");
  return {
    ...r,
    event_type: r.event_type,
    timestamp: new Date(r.timestamp).toISOString(),
    received_at: new Date(r.received_at).toISOString(),
    payload: payload as Record<string, unknown>,
  };
}
