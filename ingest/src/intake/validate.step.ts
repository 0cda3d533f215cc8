import {
  EVENT_TYPES,
  type EventRejection,
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

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv;

export type EventCheck =
  | { ok: true; event: WireEvent }
  | { ok: false; rejection: Omit<EventRejection, "index"> };

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
 * and limits on payload size and depth.
 */
export function createEventValidator(): (raw: unknown) => EventCheck {
  const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
  const envelope = ajv.compile(WireEventEnvelope);
  const payloads = new Map<EventType, ValidateFunction>(
    EVENT_TYPES.map((t) => [t, ajv.compile(PAYLOADS[t])]),
  );

  return (raw) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      return { ok: false, rejection: { code: "invalid_event", message: "An event is a JSON object." } };
    }
    const type = (raw as { event_type?: unknown }).event_type;
    if (typeof type === "string" && RETIRED_EVENT_TYPES.has(type)) {
      return {
        ok: false,
        rejection: {
          code: "retired_event_type",
          message: `${type} is retired; use VIDEO_PLAY, VIDEO_PAUSE, VIDEO_ENDED, VIDEO_WATCHED_1S and VIDEO_WATCHED_5S.`,
          field: "event_type",
        },
      };
    }
    if (!envelope(raw)) {
      const e = envelope.errors?.[0];
      const d = e ? describe(e) : { code: "invalid_event", message: "is invalid" };
      const field = e ? fieldOf("", e) : "";
      return { ok: false, rejection: { code: d.code, message: `${field} ${d.message}`.trim(), field } };
    }
    const event = raw as unknown as Record<string, unknown> & {
      event_type: string;
      payload?: Record<string, unknown>;
    };
    if (!isEventType(event.event_type)) {
      return {
        ok: false,
        rejection: {
          code: "unknown_event_type",
          message: `"${event.event_type}" is not one of the ${EVENT_TYPES.length} event types.`,
          field: "event_type",
        },
      };
    }
    const payload = event.payload ?? {};
    const shape = inspect(payload);
    if (shape.badString) {
      return {
        ok: false,
        rejection: {
          code: "invalid_characters",
          message: "The payload holds a NUL character or an unpaired surrogate.",
          field: "payload",
        },
      };
    }
    if (shape.depth > MAX_PAYLOAD_DEPTH) {
      return {
        ok: false,
        rejection: {
          code: "payload_too_deep",
          message: `The payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels.`,
          field: "payload",
        },
      };
    }
    if (JSON.stringify(payload).length > MAX_PAYLOAD_CHARS) {
      return {
        ok: false,
        rejection: {
          code: "payload_too_large",
          message: `The payload exceeds ${MAX_PAYLOAD_CHARS} characters.`,
          field: "payload",
        },
      };
    }
    if (typeof event.video_id === "string" && !isStorableText(event.video_id)) {
      return {
        ok: false,
        rejection: {
          code: "invalid_characters",
          message: "video_id holds a NUL character or an unpaired surrogate.",
          field: "video_id",
        },
      };
    }
    const check = payloads.get(event.event_type);
    if (check && !check(payload)) {
      const e = check.errors?.[0];
      const d = e ? describe(e) : { code: "invalid_field", message: "is invalid" };
      const field = e ? fieldOf("payload", e) : "payload";
      return {
        ok: false,
        rejection: { code: d.code, message: `${field} ${d.message} for ${event.event_type}`, field },
      };
    }
    if (VIDEO_ID_REQUIRED.has(event.event_type) && event.video_id === undefined) {
      return {
        ok: false,
        rejection: {
          code: "missing_field",
          message: `video_id is required for ${event.event_type}`,
          field: "video_id",
        },
      };
    }
    if (POSITION_REQUIRED.has(event.event_type) && event.position_in_feed === undefined) {
      return {
        ok: false,
        rejection: {
          code: "missing_field",
          message: `position_in_feed is required for ${event.event_type}`,
          field: "position_in_feed",
        },
      };
    }
    return { ok: true, event: { ...event, payload } as WireEvent };
  };
}
