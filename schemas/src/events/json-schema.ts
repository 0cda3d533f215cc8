import type { TSchema } from "@sinclair/typebox";
import { PAYLOADS } from "./payloads.ts";
import { EVENT_TYPES, type EventType } from "./types.ts";
import { WireEventEnvelope } from "./wire.ts";

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

/** The name under which an event type's wire form is a schema (OpenAPI component, `$defs` entry). */
const eventSchemaName = (type: EventType) => `Event.${type}`;

/**
 * The JSON Schema of one event type's wire form, as `POST /api/v1/events` takes it: the envelope with
 * `event_type` fixed and the type's payload (required when the payload has required fields). The
 * same schemas the intake validates with.
 */
function wireEventSchema(type: EventType): Record<string, unknown> {
  const envelope = plain(WireEventEnvelope) as {
    properties: Record<string, unknown>;
    required: string[];
  };
  const payload = plain(PAYLOADS[type]) as { required?: string[] };
  const needsPayload = (payload.required ?? []).length > 0;
  return {
    ...envelope,
    title: type,
    properties: { ...envelope.properties, event_type: { const: type }, payload },
    required: needsPayload ? [...envelope.required, "payload"] : envelope.required,
  };
}

/** Each event type's wire schema by its component name. */
export function wireEventSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(EVENT_TYPES.map((t) => [eventSchemaName(t), wireEventSchema(t)]));
}

/**
 * The JSON Schema document of `GET /api/v1/schemas/events.json`: one definition per event type, and
 * at the top any one of them.
 */
export function eventsJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "/api/v1/schemas/events.json",
    title: "Feedlab event (wire form)",
    description:
      "One event as POST /api/v1/events takes it in `events`: the envelope with `event_type` and the type's payload. Payloads may carry extra fields.",
    oneOf: EVENT_TYPES.map((t) => ({ $ref: `#/$defs/${eventSchemaName(t)}` })),
    $defs: wireEventSchemas(),
  };
}
