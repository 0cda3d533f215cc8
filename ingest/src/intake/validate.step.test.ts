import { randomUUID } from "node:crypto";
import {
  bufferOf,
  EVENT_TYPES,
  type EventType,
  EXAMPLE_PAYLOADS,
  exampleRowFields,
  HIGH_FREQUENCY_TYPES,
  IMMEDIATE_TYPES,
  PAYLOADS,
  POSITION_REQUIRED,
  VIDEO_ID_EXPECTED,
  VIDEO_ID_REQUIRED,
} from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { createEventValidator } from "./validate.step.ts";

const check = createEventValidator();
const wire = (type: string, payload: unknown, extra: Record<string, unknown> = {}) => ({
  event_id: randomUUID(),
  event_type: type,
  timestamp: "2026-11-21T10:00:00.000Z",
  payload,
  ...exampleRowFields(type as EventType),
  ...extra,
});

describe("the event contract", () => {
  it("has exactly the spec's 33 types and batching sets", () => {
    expect(EVENT_TYPES).toHaveLength(33);
    expect(new Set(EVENT_TYPES).size).toBe(33);
    expect([...HIGH_FREQUENCY_TYPES].sort()).toEqual([
      "MOUSE_MOVEMENT",
      "SCROLL",
      "VIDEO_PROGRESS",
      "VIEWPORT_VISIBILITY",
    ]);
    expect([...IMMEDIATE_TYPES].sort()).toEqual([
      "DISLIKE",
      "LIKE",
      "PAGE_EXIT",
      "SESSION_END",
      "VIDEO_ENDED",
    ]);
    expect(bufferOf("LIKE")).toBe("immediate");
    expect(bufferOf("SCROLL")).toBe("highFrequency");
    expect(bufferOf("PAGE_LOAD")).toBe("normal");
  });

  it.each(EVENT_TYPES)("accepts a valid %s with extra payload fields", (type) => {
    const r = check(wire(type, { ...EXAMPLE_PAYLOADS[type], researcherField: { any: "thing" } }));
    expect(r.kind, JSON.stringify(r)).toBe("ok");
  });

  it.each(
    EVENT_TYPES.flatMap((t) =>
      ((PAYLOADS[t] as { required?: string[] }).required ?? []).map((f) => [t, f] as const),
    ),
  )("rejects %s without its required payload field %s, naming it", (type, field) => {
    const payload: Record<string, unknown> = { ...EXAMPLE_PAYLOADS[type] };
    delete payload[field];
    const r = check(wire(type, payload));
    expect(r).toMatchObject({ kind: "drop", code: "missing_field", field: `payload.${field}` });
  });

  it.each(EVENT_TYPES.flatMap((t) => Object.keys(EXAMPLE_PAYLOADS[t]).map((f) => [t, f] as const)))(
    "rejects %s when payload field %s has the wrong type",
    (type, field) => {
      const value = (EXAMPLE_PAYLOADS[type] as Record<string, unknown>)[field];
      const wrong =
        typeof value === "string"
          ? 42
          : typeof value === "number"
            ? true
            : typeof value === "boolean"
              ? "yes"
              : "text";
      const r = check(wire(type, { ...EXAMPLE_PAYLOADS[type], [field]: wrong }));
      expect(r).toMatchObject({ kind: "drop", code: "invalid_field" });
    },
  );

  it.each([...VIDEO_ID_REQUIRED])("rejects %s without video_id", (type) => {
    const e = wire(type, EXAMPLE_PAYLOADS[type]);
    delete (e as { video_id?: string }).video_id;
    const r = check(e);
    expect(r).toMatchObject({ kind: "drop", code: "missing_field", field: "video_id" });
  });

  it.each([...VIDEO_ID_EXPECTED])("accepts %s without video_id, as the spec allows", (type) => {
    const e = wire(type, EXAMPLE_PAYLOADS[type]);
    delete (e as { video_id?: string }).video_id;
    expect(check(e).kind).toBe("ok");
  });

  it.each([...POSITION_REQUIRED])("rejects %s without position_in_feed", (type) => {
    const e = wire(type, EXAMPLE_PAYLOADS[type]);
    delete (e as { position_in_feed?: number }).position_in_feed;
    const r = check(e);
    expect(r).toMatchObject({ kind: "drop", code: "missing_field", field: "position_in_feed" });
  });

  it.each(["VIDEO_START", "VIDEO_END"])("rejects the retired name %s", (type) => {
    const r = check(wire(type, {}, { video_id: "v" }));
    expect(r).toMatchObject({ kind: "drop", code: "retired_event_type" });
  });

  it("rejects unknown types, bad envelopes, NUL characters, deep nesting and huge payloads", () => {
    const codeOf = (raw: unknown) => {
      const r = check(raw);
      return r.kind === "drop" ? r.code : r.kind;
    };
    expect(codeOf(wire("VIDEO_TELEPORT", {}))).toBe("unknown_event_type");
    expect(codeOf("not an object")).toBe("invalid_event");
    expect(codeOf({ ...wire("WINDOW_BLUR", {}), event_id: "nope" })).toBe("invalid_field");
    expect(codeOf({ ...wire("WINDOW_BLUR", {}), timestamp: "yesterday" })).toBe("invalid_field");
    expect(codeOf({ ...wire("WINDOW_BLUR", {}), surprise: 1 })).toBe("unknown_field");
    expect(codeOf(wire("LAYOUT_CHANGE", { from: "a\u0000", to: "b", context: "c" }))).toBe(
      "invalid_characters",
    );
    expect(codeOf(wire("LAYOUT_CHANGE", { from: "\ud800", to: "b", context: "c" }))).toBe(
      "invalid_characters",
    );
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(codeOf(wire("WINDOW_BLUR", { deep }))).toBe("payload_too_deep");
    expect(codeOf(wire("WINDOW_BLUR", { big: "x".repeat(70_000) }))).toBe("payload_too_large");
    expect(codeOf({ ...wire("IMPRESSION", {}), position_in_feed: -1 })).toBe("invalid_field");
  });
});
