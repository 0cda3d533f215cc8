import avro from "avsc";
import { isEventType } from "./types.ts";
import type { LoggedEvent } from "./wire.ts";

/** The fields every revision of the record has, in order (revision 1). */
const FIELDS_V1 = [
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
] as const;

const record = (fields: readonly unknown[]) =>
  ({
    type: "record",
    name: "LoggedEvent",
    namespace: "org.feedlab.events.v1",
    doc: "One interaction event, validated and stamped by Feedlab's ingest.",
    fields,
  }) as const;

/** Revision 1 (release 0.1.0): records written before the UI stamps, as raw Avro binary. */
export const LOGGED_EVENT_SCHEMA_V1 = record(FIELDS_V1);

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
 *
 * Revision 2 adds `ui_feed` and `ui_watch`: the UI in force for the group when the event arrived.
 */
export const LOGGED_EVENT_SCHEMA = record([
  ...FIELDS_V1,
  {
    name: "ui_feed",
    type: ["null", "string"],
    default: null,
    doc: "Preset key, none, or <template id>@<version>",
  },
  {
    name: "ui_watch",
    type: ["null", "string"],
    default: null,
    doc: "Preset key, none, or <template id>@<version>",
  },
]);

// Timestamps travel as epoch milliseconds (the logical type documents it for other readers).
const typeOf = (schema: unknown) => avro.Type.forSchema(schema as avro.Schema);
const type = typeOf(LOGGED_EVENT_SCHEMA);

/** Hex SHA-256 fingerprint of the schema's canonical form (sent as a Kafka header). */
export const LOGGED_EVENT_FINGERPRINT = type.fingerprint("sha256").toString("hex");

/** The CRC-64-AVRO (Rabin) fingerprint table of the Avro specification. */
const RABIN_EMPTY = 0xc15d213aa4d7a795n;
const RABIN_TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (RABIN_EMPTY & -(fp & 1n));
  return fp;
});

/** The 64-bit fingerprint of a schema's parsing canonical form, as single-object encoding carries it. */
function fingerprintLE(t: avro.Type): Buffer {
  let fp = RABIN_EMPTY;
  for (const byte of Buffer.from(JSON.stringify(t.schema()), "utf8")) {
    fp = (fp >> 8n) ^ (RABIN_TABLE[Number((fp ^ BigInt(byte)) & 0xffn)] as bigint);
  }
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt.asUintN(64, fp));
  return out;
}

/** The two bytes that open an Avro single-object encoded value (the Avro specification's marker). */
const SINGLE_OBJECT_MARKER = [0xc3, 0x01] as const;
const HEADER_BYTES = 10;

/**
 * The writers' schemas this version reads, by the CRC-64-AVRO fingerprint of their parsing
 * canonical form (little-endian, as single-object encoding carries it): the current revision is
 * decoded directly, older ones are resolved to it (new fields take their defaults).
 */
const typeV1 = typeOf(LOGGED_EVENT_SCHEMA_V1);
const V1_RESOLVER = type.createResolver(typeV1);
const CURRENT_FINGERPRINT = fingerprintLE(type);
const WRITERS = new Map<string, { resolver?: avro.Resolver }>([
  [fingerprintLE(typeV1).toString("hex"), { resolver: V1_RESOLVER }],
  [CURRENT_FINGERPRINT.toString("hex"), {}],
]);

/**
 * Encodes a logged event in Avro's single-object encoding: the marker C3 01, the 8-byte
 * CRC-64-AVRO fingerprint of the writer's schema (little-endian), then the Avro binary body.
 */
export function encodeLoggedEvent(e: LoggedEvent): Buffer {
  const body = type.toBuffer({
    ...e,
    timestamp: Date.parse(e.timestamp),
    received_at: Date.parse(e.received_at),
    payload: JSON.stringify(e.payload),
  });
  return Buffer.concat([Buffer.from(SINGLE_OBJECT_MARKER), CURRENT_FINGERPRINT, body]);
}

/**
 * Decodes a logged event with its writer's schema: a single-object encoded value by the schema its
 * fingerprint names, and a value without the marker as the raw revision-1 binary that release 0.1.0
 * wrote (its first byte is the length of a 36-character event id, never C3). Throws on bytes that
 * are not a LoggedEvent, or whose writer's schema this version does not know.
 */
export function decodeLoggedEvent(buf: Buffer | Uint8Array): LoggedEvent {
  const bytes = Buffer.isBuffer(buf) ? buf : Buffer.from(buf);
  let decoded: unknown;
  if (bytes[0] === SINGLE_OBJECT_MARKER[0] && bytes[1] === SINGLE_OBJECT_MARKER[1]) {
    const fingerprint = bytes.subarray(2, HEADER_BYTES).toString("hex");
    const writer = WRITERS.get(fingerprint);
    if (!writer) throw new Error(`unknown writer schema (CRC-64-AVRO fingerprint ${fingerprint})`);
    decoded = type.fromBuffer(bytes.subarray(HEADER_BYTES), writer.resolver);
  } else {
    decoded = type.fromBuffer(bytes, V1_RESOLVER);
  }
  const r = decoded as Omit<LoggedEvent, "timestamp" | "received_at" | "payload"> & {
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
