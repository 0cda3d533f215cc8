import avro from "avsc";
import { describe, expect, it } from "vitest";
import { decodeLoggedEvent, encodeLoggedEvent, LOGGED_EVENT_SCHEMA, LOGGED_EVENT_SCHEMA_V1 } from "./avro.ts";
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
    // SchemaNormalization.parsingFingerprint64 of LOGGED_EVENT_SCHEMA, from Apache Avro 1.12.2 (Java),
    // which also decoded this framing with its BinaryMessageDecoder.
    expect(bytes.readBigInt64LE(2)).toBe(894561759850618579n);
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

  it("refuses a single-object record whose writer's schema it does not know, naming the fingerprint", () => {
    const bytes = encodeLoggedEvent(event);
    bytes.writeBigInt64LE(1n, 2);
    expect(() => decodeLoggedEvent(bytes)).toThrow(
      /unknown writer schema \(CRC-64-AVRO fingerprint 0100000000000000\)/,
    );
  });
});
