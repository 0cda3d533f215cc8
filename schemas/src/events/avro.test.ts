import { readFileSync } from "node:fs";
import avro from "avsc";
import { describe, expect, it } from "vitest";
import {
  decodeLoggedEvent,
  encodeLoggedEvent,
  encodeLoggedEventConfluent,
  IncompatibleSchemaError,
  LOGGED_EVENT_SCHEMA,
  LOGGED_EVENT_SCHEMA_V1,
  LOGGED_EVENT_VERSIONS,
  registerWriterSchema,
  schemaFingerprint,
  sealableFields,
  UnknownWriterError,
  writerSchemas,
} from "./avro.ts";
import type { LoggedEvent } from "./wire.ts";

const event: LoggedEvent = {
  event_id: "00000000-0000-4000-8000-000000000001",
  session_id: "00000000-0000-4000-8000-00000005e551",
  user_id: "00000000-0000-4000-8000-00000000a11c",
  login_id: "alice",
  experiment_id: "00000000-0000-4000-8000-0000000e0001",
  group_id: "00000000-0000-4000-8000-000000009001",
  event_type: "FEED_CLICK",
  video_id: "yt-42",
  timestamp: "2026-11-25T10:00:00.000Z",
  received_at: "2026-11-25T10:00:00.250Z",
  watch_ratio: null,
  watch_duration: null,
  position_in_feed: 3,
  algorithm_feed: "recency",
  algorithm_watch: "similarity",
  payload: { title: "Sourdough basics" },
  seq: 12,
  ui_feed: "9d7c1a52-3b8e-4d6f-9a0e-1f2b3c4d5e6f@2",
  ui_watch: "none",
};

describe("the logged event's Avro encoding", () => {
  it("frames each record in Avro single-object encoding with the fingerprint Apache Avro computes", () => {
    const bytes = encodeLoggedEvent(event);
    expect([...bytes.subarray(0, 2)]).toEqual([0xc3, 0x01]);
    // SchemaNormalization.parsingFingerprint64 of LOGGED_EVENT_SCHEMA (revision 3), from Apache Avro
    // 1.12.2 (Java), which also decoded revision 2's framing with its BinaryMessageDecoder.
    expect(bytes.readBigInt64LE(2)).toBe(-5678055241890902816n);
    const body = avro.Type.forSchema(LOGGED_EVENT_SCHEMA as unknown as avro.Schema).fromBuffer(
      bytes.subarray(10),
    );
    expect(body).toMatchObject({ event_id: event.event_id, ui_feed: event.ui_feed, ui_watch: "none" });
  });

  it("round-trips every field", () => {
    expect(decodeLoggedEvent(encodeLoggedEvent(event))).toEqual(event);
  });

  it("reads a record that release 0.1.0 wrote (raw revision-1 binary) with no UI stamps", () => {
    const v1 = avro.Type.forSchema(LOGGED_EVENT_SCHEMA_V1 as unknown as avro.Schema);
    const { ui_feed: _f, ui_watch: _w, ...old } = event;
    const bytes = v1.toBuffer({
      ...old,
      timestamp: Date.parse(event.timestamp),
      received_at: Date.parse(event.received_at),
      payload: JSON.stringify(event.payload),
    });
    expect(decodeLoggedEvent(bytes)).toEqual({ ...event, ui_feed: null, ui_watch: null });
  });

  it("reads a revision-2 record as a real participant's event (simulated absent)", () => {
    const v2 = LOGGED_EVENT_VERSIONS.find((v) => v.version === 2)?.schema;
    const v2Type = avro.Type.forSchema(v2 as unknown as avro.Schema);
    const bytes = Buffer.concat([
      Buffer.from([0xc3, 0x01]),
      Buffer.from(schemaFingerprint(v2), "hex"),
      v2Type.toBuffer({
        ...event,
        timestamp: Date.parse(event.timestamp),
        received_at: Date.parse(event.received_at),
        payload: JSON.stringify(event.payload),
      }),
    ]);
    const read = decodeLoggedEvent(bytes);
    expect(read).toEqual(event);
    expect(read.simulated).toBeUndefined();
  });

  it("round-trips a simulated participant's event with its flag", () => {
    const simulated = { ...event, simulated: true };
    expect(decodeLoggedEvent(encodeLoggedEvent(simulated))).toEqual(simulated);
  });

  it("refuses a single-object record whose writer's schema it does not know, naming the fingerprint", () => {
    const bytes = encodeLoggedEvent(event);
    bytes.writeBigInt64LE(1n, 2);
    expect(() => decodeLoggedEvent(bytes)).toThrow(
      /unknown writer schema \(CRC-64-AVRO fingerprint 0100000000000000\)/,
    );
  });
});

/** A next release's schema, changed as docs/events.md allows: one field added at the end with a default. */
const NEXT_SCHEMA = {
  ...LOGGED_EVENT_SCHEMA,
  fields: [
    ...LOGGED_EVENT_SCHEMA.fields,
    { name: "client_timezone", type: ["null", "string"], default: null },
  ],
};
const nextType = avro.Type.forSchema(NEXT_SCHEMA as unknown as avro.Schema);

/** The fingerprint in the next writer's header: unknown here until its schema is registered. */
let nextFingerprint = "00".repeat(8);

/** A record as the next release writes it: its own fingerprint in the single-object header. */
function writtenByNext(e: LoggedEvent & { client_timezone: string | null }): Buffer {
  return Buffer.concat([
    Buffer.from([0xc3, 0x01]),
    Buffer.from(nextFingerprint, "hex"),
    nextType.toBuffer({
      ...e,
      timestamp: Date.parse(e.timestamp),
      received_at: Date.parse(e.received_at),
      payload: JSON.stringify(e.payload),
      simulated: e.simulated ?? false,
    }),
  ]);
}

describe("schema evolution: each record is read with its writer's schema", () => {
  it("has every revision committed as an .avsc file equal to the schema it writes and reads", () => {
    for (const { version, schema } of LOGGED_EVENT_VERSIONS) {
      const file = new URL(`../../avro/logged-event.v${version}.avsc`, import.meta.url);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(schema);
    }
  });

  it("reads a newer writer's record once its schema is registered: the added field is skipped, a new event type carried", () => {
    // Registering the next writer's schema is what the log's schema store does for a reader.
    const newer = {
      ...event,
      event_type: "REACTION_ADDED" as LoggedEvent["event_type"],
      client_timezone: "Europe/Berlin",
    };
    expect(() => decodeLoggedEvent(writtenByNext(newer))).toThrow(UnknownWriterError);
    nextFingerprint = registerWriterSchema(NEXT_SCHEMA, 4);
    expect(writerSchemas().map((w) => w.version)).toEqual([1, 2, 3, 4]);
    const read = decodeLoggedEvent(writtenByNext(newer));
    expect(read).toEqual({ ...event, event_type: "REACTION_ADDED" });
  });

  it("lets a newer reader read this release's record, the added field taking its default", () => {
    const resolver = nextType.createResolver(
      avro.Type.forSchema(LOGGED_EVENT_SCHEMA as unknown as avro.Schema),
    );
    const bytes = encodeLoggedEvent(event);
    const read = nextType.fromBuffer(bytes.subarray(10), resolver) as Record<string, unknown>;
    expect(read).toMatchObject({ event_id: event.event_id, ui_watch: "none", client_timezone: null });
  });

  it("refuses to register a schema that changes a field's type, naming the problem", () => {
    const broken = {
      ...LOGGED_EVENT_SCHEMA,
      fields: (LOGGED_EVENT_SCHEMA.fields as { name: string }[]).map((f) =>
        f.name === "event_id" ? { ...f, type: "int" } : f,
      ),
    };
    expect(() => registerWriterSchema(broken, 4)).toThrow(IncompatibleSchemaError);
  });

  it("reads the Confluent wire format by the registry's schema id", () => {
    const bytes = encodeLoggedEventConfluent(event, 41);
    expect([...bytes.subarray(0, 5)]).toEqual([0, 0, 0, 0, 41]);
    expect(() => decodeLoggedEvent(bytes)).toThrow(/schema registry id 41/);
    registerWriterSchema(LOGGED_EVENT_SCHEMA, 2, 41);
    expect(decodeLoggedEvent(bytes)).toEqual(event);
  });

  it("writes sealed participant fields in place and opens them when read", () => {
    const sealed = { login_id: "c2VhbGVkLWxvZ2lu", payload: "c2VhbGVkLXBheWxvYWQ=" };
    const bytes = encodeLoggedEvent(event, sealed);
    expect(bytes.includes(Buffer.from("alice"))).toBe(false);
    expect(bytes.includes(Buffer.from("Sourdough"))).toBe(false);
    const opened = decodeLoggedEvent(bytes, (f) => {
      expect(f).toEqual(sealed);
      return sealableFields(event);
    });
    expect(opened).toEqual(event);
  });
});
