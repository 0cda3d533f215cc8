import { eventsJsonSchema, LOGGED_EVENT_VERSION, writerSchemas } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";

const AvroSchemaVersion = Type.Object({
  fingerprint: Type.String({
    description:
      "CRC-64-AVRO fingerprint of the schema's parsing canonical form, as hex of the 8 little-endian bytes that follow C3 01 in a single-object encoded value",
  }),
  version: Type.Union([Type.Integer(), Type.Null()], {
    description: "The schema's revision (null for a writer's schema that came without one)",
  }),
  current: Type.Boolean({ description: "The revision this release writes" }),
  schema: Type.Object({}, { additionalProperties: true, description: "The Avro schema (JSON)" }),
});

/** The published schemas of the event log, for data engineers' tools (docs/events.md). */
export function schemaRoutes() {
  return [
    route({
      method: "get",
      path: "/api/v1/schemas/avro",
      tag: "events",
      summary: "Every version of the logged-event Avro schema",
      description:
        "The revisions of the Avro record each event-log value holds (also committed as schemas/avro/*.avsc), with the fingerprints single-object encoded values carry, plus the schemas of other writers (a newer release's) this process has read. Decode a value with the schema its fingerprint names.",
      access: "public",
      responses: { 200: { description: "Oldest first", schema: Type.Array(AvroSchemaVersion) } },
      handler: (ctx) => {
        ctx.set("Cache-Control", "no-cache");
        ctx.body = writerSchemas().map((w) => ({ ...w, current: w.version === LOGGED_EVENT_VERSION }));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/schemas/events.json",
      tag: "events",
      summary: "JSON Schema of each event type's wire form",
      description:
        "A JSON Schema (2020-12) document: one definition per event type (the envelope with its payload), as POST /api/v1/events validates them; the same schemas are this document's components `Event.<TYPE>`.",
      access: "public",
      responses: {
        200: {
          description: "The document",
          schema: Type.Object({}, { additionalProperties: true }),
          contentType: "application/schema+json",
        },
      },
      handler: (ctx) => {
        ctx.set("Cache-Control", "public, max-age=3600");
        ctx.type = "application/schema+json";
        ctx.body = JSON.stringify(eventsJsonSchema());
      },
    }),
  ];
}
