import avro from "avsc";
import type { LoggedEvent } from "./wire.ts";

/** The fields every revision of the record has, in order (revision 1). */
const FIELDS_V1 = [
  { name: "event_id", type: "string", doc: "Client-generated UUID; unique" },
  { name: "session_id", type: "string" },
  { name: "user_id", type: "string" },
  {
    name: "login_id",
    type: "string",
    doc: "On Kafka with header feedlab-encryption=fields: empty (sealed in payload)",
  },
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
  {
    name: "payload",
    type: "string",
    doc: "JSON object text; on Kafka with header feedlab-encryption=fields: base64 of AES-256-GCM (12-byte iv, ciphertext, 16-byte tag) under the participant's key, of login_id, a NUL, then the JSON text",
  },
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
 * Revision 3 adds `simulated`: the event came from a simulated participant of a dry run (issue 36).
 */
const FIELDS_V2 = [
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
] as const;

/** Revision 2 (release 0.2): with the UI stamps. */
const LOGGED_EVENT_SCHEMA_V2 = record(FIELDS_V2);

export const LOGGED_EVENT_SCHEMA = record([
  ...FIELDS_V2,
  {
    name: "simulated",
    type: "boolean",
    default: false,
    doc: "True for a simulated participant of a dry run: readers that decide what real participants see leave it out",
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

/** The revisions of the record this release knows, oldest first (each also committed as `.avsc`). */
export const LOGGED_EVENT_VERSIONS = [
  { version: 1, schema: LOGGED_EVENT_SCHEMA_V1 },
  { version: 2, schema: LOGGED_EVENT_SCHEMA_V2 },
  { version: 3, schema: LOGGED_EVENT_SCHEMA },
] as const;

/** The revision this release writes. */
export const LOGGED_EVENT_VERSION = 3;

const CURRENT_FINGERPRINT = fingerprintLE(type);
const typeV1 = typeOf(LOGGED_EVENT_SCHEMA_V1);
const V1_RESOLVER = type.createResolver(typeV1);

/** A writer's schema this process can read, by its fingerprint (hex of the single-object header's 8 bytes). */
export interface WriterSchema {
  readonly fingerprint: string;
  /** The revision number its writer gave it (null when it came without one). */
  readonly version: number | null;
  readonly schema: object;
}

interface KnownWriter extends WriterSchema {
  /** Absent for the current revision (decoded directly); otherwise resolves the writer's to ours. */
  readonly resolver?: avro.Resolver;
}

/**
 * The writers' schemas this process reads: this release's revisions, and those other writers
 * published (a newer release's, found by fingerprint in the log's schema store) once registered.
 * Old records resolve to the current revision (new fields take their defaults); a newer writer's
 * record resolves too (fields this release does not know are skipped).
 */
const writers = new Map<string, KnownWriter>();
/** Confluent schema-registry ids of writer schemas, for values in the Confluent wire format. */
const registryIds = new Map<number, KnownWriter>();

function known(schema: object, version: number | null): KnownWriter {
  const t = typeOf(schema);
  const fingerprint = fingerprintLE(t).toString("hex");
  const existing = writers.get(fingerprint);
  if (existing) return existing;
  // The schema as its writer gave it (docs included), for readers to see.
  const given = JSON.parse(JSON.stringify(schema)) as object;
  const writer: KnownWriter =
    fingerprint === CURRENT_FINGERPRINT.toString("hex")
      ? { fingerprint, version, schema: given }
      : { fingerprint, version, schema: given, resolver: type.createResolver(t) };
  writers.set(fingerprint, writer);
  return writer;
}
for (const v of LOGGED_EVENT_VERSIONS) known(v.schema, v.version);

/** This release's schema with its fingerprint, as writers publish it. */
export const CURRENT_WRITER: WriterSchema = writers.get(CURRENT_FINGERPRINT.toString("hex")) as WriterSchema;

/** A writer's schema this release cannot resolve to its own (not a LoggedEvent, or an incompatible change). */
export class IncompatibleSchemaError extends Error {}

/**
 * Makes a writer's schema readable (idempotent): checks that it resolves to this release's record
 * and answers its fingerprint. Throws IncompatibleSchemaError when it does not.
 */
export function registerWriterSchema(
  schema: unknown,
  version: number | null = null,
  registryId?: number,
): string {
  let writer: KnownWriter;
  try {
    writer = known(schema as object, version);
  } catch (err) {
    throw new IncompatibleSchemaError(
      `a writer's schema this release cannot read: ${(err as Error).message}`,
    );
  }
  if (registryId !== undefined) registryIds.set(registryId, writer);
  return writer.fingerprint;
}

/** The fingerprint a schema's single-object values carry (hex of the 8 header bytes), without registering it. */
export function schemaFingerprint(schema: unknown): string {
  return fingerprintLE(typeOf(schema)).toString("hex");
}

/** Forgets another writer's schema (tests: the next lookup goes to the log's schema store again). */
export function forgetWriterSchema(fingerprint: string): void {
  if (LOGGED_EVENT_VERSIONS.some((v) => schemaFingerprint(v.schema) === fingerprint)) return;
  writers.delete(fingerprint);
  for (const [id, w] of registryIds) if (w.fingerprint === fingerprint) registryIds.delete(id);
}

/** Every writer's schema this process reads, by revision then fingerprint. */
export function writerSchemas(): WriterSchema[] {
  return [...writers.values()]
    .map(({ fingerprint, version, schema }) => ({ fingerprint, version, schema }))
    .sort((a, b) => (a.version ?? 1e9) - (b.version ?? 1e9) || a.fingerprint.localeCompare(b.fingerprint));
}

/** Where a value says its writer's schema is: by fingerprint (single-object), by registry id (Confluent), or none (raw revision 1). */
export type WriterRef =
  | { readonly kind: "fingerprint"; readonly fingerprint: string }
  | { readonly kind: "registry"; readonly id: number }
  | { readonly kind: "raw" };

/** The confluent wire format's first byte. */
const CONFLUENT_MAGIC = 0x00;

/** Where a value names its writer's schema. */
export function writerOf(bytes: Uint8Array): WriterRef {
  if (
    bytes[0] === SINGLE_OBJECT_MARKER[0] &&
    bytes[1] === SINGLE_OBJECT_MARKER[1] &&
    bytes.length >= HEADER_BYTES
  )
    return { kind: "fingerprint", fingerprint: Buffer.from(bytes.subarray(2, HEADER_BYTES)).toString("hex") };
  if (bytes[0] === CONFLUENT_MAGIC && bytes.length >= 5)
    return { kind: "registry", id: Buffer.from(bytes.subarray(1, 5)).readUInt32BE(0) };
  return { kind: "raw" };
}

/** True when this process can decode the value (its writer's schema is registered). */
export function knowsWriterOf(bytes: Uint8Array): boolean {
  const ref = writerOf(bytes);
  return (
    ref.kind === "raw" ||
    (ref.kind === "fingerprint" ? writers.has(ref.fingerprint) : registryIds.has(ref.id))
  );
}

/** The Avro body of an event as this release writes it; `sealed` replaces the fields a key encrypts. */
function bodyOf(e: LoggedEvent, sealed?: SealedFields): Buffer {
  return type.toBuffer({
    ...e,
    timestamp: Date.parse(e.timestamp),
    received_at: Date.parse(e.received_at),
    login_id: sealed ? sealed.login_id : e.login_id,
    // The record's field is a string (its type never changes): empty for "no arm yet".
    group_id: e.group_id ?? "",
    simulated: e.simulated ?? false,
    payload: sealed ? sealed.payload : JSON.stringify(e.payload),
  });
}

/**
 * Encodes a logged event in Avro's single-object encoding: the marker C3 01, the 8-byte
 * CRC-64-AVRO fingerprint of the writer's schema (little-endian), then the Avro binary body.
 * `sealed` replaces the fields a participant key encrypts (see the Kafka log) with their ciphertext.
 */
export function encodeLoggedEvent(e: LoggedEvent, sealed?: SealedFields): Buffer {
  return Buffer.concat([Buffer.from(SINGLE_OBJECT_MARKER), CURRENT_FINGERPRINT, bodyOf(e, sealed)]);
}

/**
 * Encodes a logged event in the Confluent wire format: the magic byte 0, the schema's 4-byte id in
 * the registry (big-endian), then the Avro binary body.
 */
export function encodeLoggedEventConfluent(
  e: LoggedEvent,
  registryId: number,
  sealed?: SealedFields,
): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(registryId, 1);
  return Buffer.concat([head, bodyOf(e, sealed)]);
}

/** The fields of a record that a participant key encrypts on Kafka, as their ciphertext (base64). */
export interface SealedFields {
  readonly login_id: string;
  readonly payload: string;
}

/** The fields a participant key encrypts, in the clear: the login and the payload's JSON text. */
export function sealableFields(e: LoggedEvent): SealedFields {
  return { login_id: e.login_id, payload: JSON.stringify(e.payload) };
}

/**
 * Decodes a logged event with its writer's schema: a single-object encoded value by the schema its
 * fingerprint names, a Confluent-framed value by its registry id, and a value without either as the
 * raw revision-1 binary that release 0.1.0 wrote (its first byte is the length of a 36-character
 * event id, never C3 or 0). An event type this release does not know (a newer writer's) is carried
 * as it is. `open` decrypts sealed fields (see `encodeLoggedEvent`). Throws on bytes that are not a
 * LoggedEvent, or whose writer's schema is not registered.
 */
export function decodeLoggedEvent(
  buf: Buffer | Uint8Array,
  open?: (sealed: SealedFields) => SealedFields,
): LoggedEvent {
  const bytes = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const ref = writerOf(bytes);
  let decoded: unknown;
  if (ref.kind === "raw") decoded = type.fromBuffer(bytes, V1_RESOLVER);
  else {
    const writer = ref.kind === "fingerprint" ? writers.get(ref.fingerprint) : registryIds.get(ref.id);
    if (!writer)
      throw new UnknownWriterError(
        ref.kind === "fingerprint"
          ? `unknown writer schema (CRC-64-AVRO fingerprint ${ref.fingerprint})`
          : `unknown writer schema (schema registry id ${ref.id})`,
      );
    decoded = type.fromBuffer(bytes.subarray(ref.kind === "fingerprint" ? HEADER_BYTES : 5), writer.resolver);
  }
  const { simulated, ...r } = decoded as Omit<
    LoggedEvent,
    "timestamp" | "received_at" | "payload" | "login_id"
  > & {
    login_id: string;
    timestamp: number;
    received_at: number;
    payload: string;
  };
  if (open) {
    const clear = open({ login_id: r.login_id, payload: r.payload });
    r.login_id = clear.login_id;
    r.payload = clear.payload;
  }
  const payload = JSON.parse(r.payload) as unknown;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload))
    throw new Error("payload is not a JSON object");
  return {
    ...r,
    group_id: r.group_id === "" ? null : r.group_id,
    // Absent means false (wire.ts), so a real participant's event reads back as it was written.
    ...(simulated === true ? { simulated: true } : {}),
    timestamp: new Date(r.timestamp).toISOString(),
    received_at: new Date(r.received_at).toISOString(),
    payload: payload as Record<string, unknown>,
  };
}

/** A value whose writer's schema this process has not registered (look it up, then decode again). */
export class UnknownWriterError extends Error {}
