import {
  EVENT_TYPES,
  type EventType,
  isEventType,
  isStorableText,
  MAX_PAYLOAD_CHARS,
  MAX_PAYLOAD_DEPTH,
  PAYLOADS,
  POSITION_REQUIRED,
  RETIRED_EVENT_TYPES,
  VIDEO_ID_REQUIRED,
  type WireEvent,
  WireEventEnvelope,
} from "@feedlab/schemas";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsPkg from "ajv-formats";
import { drop, ok, type StepResult } from "./results.ts";

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv;

/** `/a/0/b` -> `a[0].b` */
function fieldOf(prefix: string, e: ErrorObject): string {
  const parts = e.instancePath.split("/").slice(1);
  if (e.keyword === "required") parts.push(String(e.params.missingProperty));
  if (e.keyword === "additionalProperties") parts.push(String(e.params.additionalProperty));
  let out = prefix;
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === "" ? p : `.${p}`;
  return out;
}

function describe(e: ErrorObject): { code: string; message: string } {
  if (e.keyword === "required") return { code: "missing_field", message: "is required" };
  if (e.keyword === "additionalProperties")
    return { code: "unknown_field", message: "is not a field of the wire format" };
  return { code: "invalid_field", message: e.message ?? "is invalid" };
}

/** Finds strings PostgreSQL's jsonb cannot hold (NUL, lone surrogates) and measures nesting depth. */
function inspect(value: unknown, depth = 0): { depth: number; badString: boolean } {
  if (typeof value === "string") return { depth, badString: !isStorableText(value) };
  if (value === null || typeof value !== "object") return { depth, badString: false };
  let max = depth;
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const r = inspect(v, depth + 1);
    if (r.badString) return r;
    if (r.depth > max) max = r.depth;
    if (max > MAX_PAYLOAD_DEPTH) return { depth: max, badString: false };
  }
  if (!Array.isArray(value) && Object.keys(value).some((k) => !isStorableText(k))) {
    return { depth: max, badString: true };
  }
  return { depth: max, badString: false };
}

/**
 * Compiles the validators of the event contract once (at start-up) and returns the per-event check:
 * the envelope, the type (unknown and retired names refused), the type's required payload fields and
 * their types (extra fields allowed), `video_id` and `position_in_feed` where the type needs them,
 * and limits on payload size and depth. The check answers `ok` with the event, or `drop` with the
 * rejection's code, message and field (api.md: a rejected event is reported, the others stored).
 */
export function createEventValidator(): (raw: unknown) => StepResult<WireEvent> {
  const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
  const envelope = ajv.compile(WireEventEnvelope);
  const payloads = new Map<EventType, ValidateFunction>(
    EVENT_TYPES.map((t) => [t, ajv.compile(PAYLOADS[t])]),
  );

  return (raw) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      return drop("invalid_event", "An event is a JSON object.");
    }
    const type = (raw as { event_type?: unknown }).event_type;
    if (typeof type === "string" && RETIRED_EVENT_TYPES.has(type)) {
      return drop(
        "retired_event_type",
        `${type} is retired; use VIDEO_PLAY, VIDEO_PAUSE, VIDEO_ENDED, VIDEO_WATCHED_1S and VIDEO_WATCHED_5S.`,
        "event_type",
      );
    }
    if (!envelope(raw)) {
      const e = envelope.errors?.[0];
      const d = e ? describe(e) : { code: "invalid_event", message: "is invalid" };
      const field = e ? fieldOf("", e) : "";
      return drop(d.code, `${field} ${d.message}`.trim(), field);
    }
    const event = raw as unknown as Record<string, unknown> & {
      event_type: string;
      payload?: Record<string, unknown>;
    };
    if (!isEventType(event.event_type)) {
      return drop(
        "unknown_event_type",
        `"${event.event_type}" is not one of the ${EVENT_TYPES.length} event types.`,
        "event_type",
      );
    }
    const payload = event.payload ?? {};
    const shape = inspect(payload);
    if (shape.badString) {
      return drop(
        "invalid_characters",
        "The payload holds a NUL character or an unpaired surrogate.",
        "payload",
      );
    }
    if (shape.depth > MAX_PAYLOAD_DEPTH) {
      return drop(
        "payload_too_deep",
        `The payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels.`,
        "payload",
      );
    }
    if (JSON.stringify(payload).length > MAX_PAYLOAD_CHARS) {
      return drop("payload_too_large", `The payload exceeds ${MAX_PAYLOAD_CHARS} characters.`, "payload");
    }
    if (typeof event.video_id === "string" && !isStorableText(event.video_id)) {
      return drop(
        "invalid_characters",
        "video_id holds a NUL character or an unpaired surrogate.",
        "video_id",
      );
    }
    const check = payloads.get(event.event_type);
    if (check && !check(payload)) {
      const e = check.errors?.[0];
      const d = e ? describe(e) : { code: "invalid_field", message: "is invalid" };
      const field = e ? fieldOf("payload", e) : "payload";
      return drop(d.code, `${field} ${d.message} for ${event.event_type}`, field);
    }
    if (VIDEO_ID_REQUIRED.has(event.event_type) && event.video_id === undefined) {
      return drop("missing_field", `video_id is required for ${event.event_type}`, "video_id");
    }
    if (POSITION_REQUIRED.has(event.event_type) && event.position_in_feed === undefined) {
      return drop(
        "missing_field",
        `position_in_feed is required for ${event.event_type}`,
        "position_in_feed",
      );
    }
    return ok({ ...event, payload } as WireEvent);
  };
}
