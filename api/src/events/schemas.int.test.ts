import { readFileSync } from "node:fs";
import path from "node:path";
import { EVENT_TYPES, EXAMPLE_PAYLOADS, exampleRowFields, LOGGED_EVENT_VERSION } from "@feedlab/schemas";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPkg from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";

const addFormats = addFormatsPkg as unknown as (ajv: Ajv2020) => Ajv2020;
const ROOT = path.resolve(import.meta.dirname, "../../..");

describe.each(BACKENDS)("the published schemas of the event log (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(backend);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("serves every revision of the Avro schema, the same as the committed .avsc files, without signing in", async () => {
    const r = await app
      .client()
      .get<{ fingerprint: string; version: number; current: boolean; schema: unknown }[]>(
        "/api/v1/schemas/avro",
      );
    expect(r.status).toBe(200);
    // This release's revisions; a newer writer's schema that this process read is served after them
    // (another integration file of the same worker may have read one: vitest.config.ts).
    const ours = r.body.filter((s) => s.version <= LOGGED_EVENT_VERSION);
    expect(ours.map((s) => [s.version, s.current])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    for (const s of ours) {
      const file = path.join(ROOT, `schemas/avro/logged-event.v${s.version}.avsc`);
      expect(s.schema).toEqual(JSON.parse(readFileSync(file, "utf8")));
      expect(s.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    }
    // Revisions 2 and 3's fingerprints as Apache Avro 1.12.2 (Java) computes them, little-endian.
    const le = (fp: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(fp);
      return b.toString("hex");
    };
    expect(r.body[1]?.fingerprint).toBe(le(894561759850618579n));
    expect(r.body[2]?.fingerprint).toBe(le(-5678055241890902816n));
  });

  it("serves a JSON Schema of each event type's wire form that accepts the examples and names what is missing", async () => {
    const r = await app.client().get<Record<string, unknown>>("/api/v1/schemas/events.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/schema+json");
    const doc = typeof r.body === "string" ? (JSON.parse(r.body) as Record<string, unknown>) : r.body;
    const defs = doc.$defs as Record<string, unknown>;
    expect(Object.keys(defs)).toHaveLength(33);
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const validate = ajv.compile(doc);
    for (const type of EVENT_TYPES) {
      const event = {
        event_id: "00000000-0000-4000-8000-000000000001",
        event_type: type,
        timestamp: "2026-11-25T10:00:00.000Z",
        payload: EXAMPLE_PAYLOADS[type],
        ...exampleRowFields(type),
      };
      expect(validate(event), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const layoutWithout = ajv.compile(defs["Event.LAYOUT_CHANGE"] as object);
    expect(
      layoutWithout({
        event_id: "00000000-0000-4000-8000-000000000001",
        event_type: "LAYOUT_CHANGE",
        timestamp: "2026-11-25T10:00:00Z",
        payload: {},
      }),
    ).toBe(false);
    expect(JSON.stringify(layoutWithout.errors)).toContain("from");

    // The OpenAPI document carries the same schemas as its components.
    const openapi = (
      await app.client().get<{ components: { schemas: Record<string, unknown> } }>("/api/v1/openapi.json")
    ).body;
    expect(openapi.components.schemas["Event.FEED_CLICK"]).toEqual(defs["Event.FEED_CLICK"]);
  });
});
