import { EVENT_TYPES, EXAMPLE_PAYLOADS } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  type Reply,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  createSampler,
  encodeComponent,
  loadOpenApi,
  type Operation,
  type Sampler,
  type Schema,
} from "../../../test/harness/openapi.ts";
import { createSurvey } from "../../../test/harness/surveys.ts";

/**
 * api.md, "Validity rules (wave 3)": every integer and number in every operation's parameters and
 * bodies declares `minimum` and `maximum` in the served OpenAPI document; out of range is a 422
 * naming the field, never a 5xx. The document is walked for every numeric field (query, path and JSON
 * body, nested objects and arrays included), and each is sent, one at a time with the rest of the
 * request valid, its bounds, one past each, and numbers no storage holds. Deterministic: the same
 * requests every run (routes.fuzz sends random ones).
 */

/** One step from a body's root to a field: the value there, as the schema of what it leads to. */
type Step =
  | { readonly kind: "root"; readonly schema: Schema }
  | { readonly kind: "property"; readonly key: string; readonly schema: Schema }
  | { readonly kind: "item"; readonly schema: Schema };

interface NumericField {
  readonly op: Operation;
  readonly in: "query" | "path" | "body";
  /** The field as a 422 names it: `before`, `videos[0].view_count`. */
  readonly field: string;
  /** The integer or number schema itself. */
  readonly schema: Schema;
  /** Body fields: the way from the root to the field. */
  readonly steps: readonly Step[];
}

const isNumeric = (s: Schema): boolean => [s.type].flat().some((t) => t === "integer" || t === "number");

/** `[root, videos, item, view_count]` -> `videos[0].view_count` (the first item of each array). */
const fieldOf = (steps: readonly Step[]): string =>
  steps
    .map((s, i) => (s.kind === "item" ? "[0]" : s.kind === "property" ? (i > 1 ? `.${s.key}` : s.key) : ""))
    .join("");

/** Every numeric field under a schema; a union's branches each, the branch taken kept on the way. */
function numericFields(schema: Schema, steps: readonly Step[], resolve: Sampler["resolve"]): Step[][] {
  if (steps.length > 16) return [];
  const s = resolve(schema);
  const here = [...steps.slice(0, -1), { ...(steps.at(-1) as Step), schema: s } as Step];
  const out: Step[][] = [];
  for (const branch of [s.anyOf, s.oneOf, s.allOf].flat() as (Schema | undefined)[]) {
    if (branch) out.push(...numericFields(branch, here, resolve));
  }
  if (isNumeric(s)) out.push(here);
  for (const [key, v] of Object.entries((s.properties as Record<string, Schema> | undefined) ?? {}))
    out.push(...numericFields(v, [...here, { kind: "property", key, schema: v }], resolve));
  // A record's values: under a key of the sampler's own ("a").
  for (const v of Object.values((s.patternProperties as Record<string, Schema> | undefined) ?? {}))
    out.push(...numericFields(v, [...here, { kind: "property", key: "a", schema: v }], resolve));
  if (s.additionalProperties && typeof s.additionalProperties === "object") {
    const v = s.additionalProperties as Schema;
    out.push(...numericFields(v, [...here, { kind: "property", key: "a", schema: v }], resolve));
  }
  if (s.items && typeof s.items === "object")
    out.push(
      ...numericFields(s.items as Schema, [...here, { kind: "item", schema: s.items as Schema }], resolve),
    );
  return out;
}

/** The next double above (`1`) or below (`-1`) x. */
function nextDouble(x: number, direction: 1 | -1): number {
  if (x === 0) return direction * Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + (x > 0 === direction > 0 ? 1n : -1n));
  return view.getFloat64(0);
}

/** Texts sent for every numeric field: huge, negative, exponents, -0, non-finite and over-long. */
const EXTREMES = [
  "0",
  "-1",
  "1.5",
  "1e3",
  "-0",
  "1e308",
  "-1e308",
  "99999999999999999999",
  "-99999999999999999999",
  "123456789012345678901234567890",
  `1${"0".repeat(400)}`,
  `-${"9".repeat(400)}`,
  "NaN",
  "Infinity",
  "-Infinity",
];

/** The field's bounds, one past each, then the extremes. */
function probes(s: Schema): string[] {
  const min = Number(s.minimum ?? 0);
  const max = Number(s.maximum ?? 0);
  const past = [s.type].flat().includes("integer")
    ? [min - 1, max + 1]
    : [nextDouble(min, -1), nextDouble(max, 1)];
  return [...new Set([String(min), String(max), ...past.map(String), ...EXTREMES])];
}

/** The value the server sees: a query string coerced as the validator does, a body as JSON. */
function seen(text: string, where: NumericField["in"]): unknown {
  if (where !== "body") return text.trim() === "" ? Number.NaN : Number(text);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether the schema takes the value. */
function inRange(v: unknown, s: Schema): boolean {
  if (typeof v !== "number" || !Number.isFinite(v)) return false;
  if ([s.type].flat().includes("integer") && !Number.isInteger(v)) return false;
  if (typeof s.minimum === "number" && v < s.minimum) return false;
  if (typeof s.maximum === "number" && v > s.maximum) return false;
  if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return false;
  if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return false;
  return true;
}

/** Whether a reply is the validator's 422 naming the field. */
function refusedFor(r: Reply, field: string): boolean {
  const details = detailsOf<{ field?: string; problems?: { field: string }[] }>(r);
  return (
    r.status === 422 &&
    codeOf(r) === "validation_failed" &&
    (details?.field === field || (details?.problems ?? []).some((p) => p.field === field))
  );
}

/** Stands for the probed value in a body's JSON, which then carries the text as it is. */
const PROBE = "\u2063probe\u2063";
const ALWAYS_FIRST = () => 0;
/** No UUID in the document names a resource of this id. */
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

describe.each(BACKENDS)("numeric bounds of every operation (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  const clients: Partial<Record<Operation["access"], Client>> = {};
  let sampler: Sampler;
  let fields: NumericField[];
  /** Path parameters by the path segment before them: resources the requests may change. */
  let idAfter: Record<string, string>;
  let participant: Joined;
  let studyId: string;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    // The participant's study, and a draft one the admin requests change (completion, weights).
    const study = await createStudy(admin, { videoCount: 2, status: "running", weights: [1] });
    const draft = await createStudy(admin, { videoCount: 1, name: "Draft", weights: [1] });
    const survey = await createSurvey(admin, draft.experiment.id, { kind: "pre" });
    // A layout of the participant's group, so that its render errors are taken.
    const template = await admin.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name: "Layout",
      page: "feed",
      template_type: "blocks",
      tree: { type: "Page", children: [{ type: "Text", props: { style: "heading", text: "Videos" } }] },
    });
    await admin.patch(`/api/v1/admin/groups/${study.groups[0]?.id}`, {
      ui_config: { feed: template.body.id, watch: "grid-desktop" },
    });
    const joined = await joinWithSession(app.client(), study.experiment.id, "bounds");
    const video = study.videos[0]?.id ?? UNKNOWN_ID;
    idAfter = {
      experiments: draft.experiment.id,
      groups: draft.groups[0]?.id ?? UNKNOWN_ID,
      videos: video,
      feed: video,
      surveys: survey.id,
      participants: joined.userId,
      recommenders: "recency",
      "ui-templates": template.body.id,
    };
    participant = joined;
    studyId = study.experiment.id;
    clients.admin = admin;
    clients.participant = joined.client;
    clients.public = app.client();
    const doc = await loadOpenApi(admin);
    // The UUID a sampled request carries: the participant's session (the feed's session_id).
    sampler = createSampler(doc.components, [joined.sessionId]);
    fields = [];
    const add = (f: NumericField) => {
      if (!fields.some((g) => g.op === f.op && g.in === f.in && g.field === f.field)) fields.push(f);
    };
    for (const op of doc.operations) {
      for (const [where, params] of [
        ["query", op.query],
        ["path", op.pathParams],
      ] as const) {
        for (const p of params) {
          for (const steps of numericFields(p.schema, [{ kind: "root", schema: p.schema }], sampler.resolve))
            add({ op, in: where, field: p.name, schema: steps.at(-1)?.schema ?? {}, steps: [] });
        }
      }
      if (!op.body) continue;
      for (const steps of numericFields(op.body, [{ kind: "root", schema: op.body }], sampler.resolve))
        add({ op, in: "body", field: fieldOf(steps), schema: steps.at(-1)?.schema ?? {}, steps });
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  let requests = 0;
  /** The smallest valid value of a schema: first alternatives, no optional field, texts made unique. */
  const smallest = (s: Schema) => sampler.sample(s, ALWAYS_FIRST, { optional: 0, unique: String(requests) });

  /** The body along `steps` with the probe at the end, everything else its smallest valid value. */
  function along(steps: readonly Step[]): unknown {
    const [here, next] = steps;
    if (!here || !next) return PROBE;
    const inner = along(steps.slice(1));
    if (next.kind !== "property") return [inner];
    const base = smallest(here.schema);
    return { ...(base && typeof base === "object" && !Array.isArray(base) ? base : {}), [next.key]: inner };
  }

  function send(f: NumericField, text: string): Promise<Reply> {
    const { op } = f;
    requests++;
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string, at: number) => {
      if (f.in === "path" && f.field === name) return encodeComponent(text);
      const segment = op.path.slice(0, at).split("/").at(-2) ?? "";
      const schema = op.pathParams.find((p) => p.name === name)?.schema ?? {};
      return encodeComponent(
        idAfter[segment] ?? (schema.format === "uuid" ? UNKNOWN_ID : String(smallest(schema))),
      );
    });
    const query = op.query
      .filter((q) => (f.in === "query" && q.name === f.field) || q.required)
      .map((q) => {
        const value = f.in === "query" && q.name === f.field ? text : String(smallest(q.schema));
        return `${encodeComponent(q.name)}=${encodeComponent(value)}`;
      });
    const url = query.length > 0 ? `${path}?${query.join("&")}` : path;
    const client = clients[op.access] ?? app.client();
    if (!op.body) return client.request(op.method, url);
    const json = JSON.stringify(f.in === "body" ? along(f.steps) : smallest(op.body));
    const literal = typeof seen(text, "body") === "number" ? text : JSON.stringify(text);
    return client.request(op.method, url, { body: json.replace(JSON.stringify(PROBE), literal) });
  }

  it("declares minimum and maximum on every integer and number of every operation's parameters and JSON bodies", () => {
    // The walk finds what it should: the audit cursor, the feed's paging, nested body fields.
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.map((f) => `${f.op.method} ${f.op.path} ${f.field}`)).toEqual(
      expect.arrayContaining([
        "GET /api/v1/admin/audit before",
        "GET /feed offset",
        "POST /api/v1/admin/videos videos[0].view_count",
        "PUT /api/v1/admin/surveys/{id} questions[0].answers[0].value",
      ]),
    );
    const undeclared = fields
      .filter((f) => typeof f.schema.minimum !== "number" || typeof f.schema.maximum !== "number")
      .map((f) => `${f.op.method} ${f.op.path} (${f.in}) ${f.field}: ${JSON.stringify(f.schema)}`);
    expect(undeclared).toEqual([]);
  });

  it("answers a number out of range with 422 validation_failed naming the field, one in range without refusing it, and never a 5xx", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const f of fields) {
      for (const text of probes(f.schema)) {
        const r = await send(f, text);
        sent++;
        const where = `${f.op.method} ${f.op.path} (${f.in}) ${f.field} = ${text.slice(0, 40)}`;
        const got = `${r.status} ${r.text.slice(0, 300)}`;
        if (r.status >= 500) failures.push(`${where}: ${got}`);
        else if (!inRange(seen(text, f.in), f.schema)) {
          // A path parameter the route's schema refuses is an unknown resource (route.ts).
          const refused = f.in === "path" ? r.status === 404 : refusedFor(r, f.field);
          if (!refused) failures.push(`${where}: out of range but ${got}`);
        } else if (refusedFor(r, f.field)) failures.push(`${where}: in range but refused: ${got}`);
      }
    }
    expect(sent).toBeGreaterThan(fields.length * EXTREMES.length);
    expect(failures).toEqual([]);
  }, 300_000);

  it("stores and exports events whose payload numbers are huge, negative, -0 or past a double, without a 5xx or a dead letter", async () => {
    // The events body is a list the document leaves open (each event is checked on its own): the
    // wire contract types each payload's numbers without bounds, and they are stored as JSON.
    const events: string[] = [];
    for (const type of EVENT_TYPES) {
      for (const text of ["1e308", "-1e308", "99999999999999999999", "-0", `1${"0".repeat(400)}`]) {
        const e = wireEvent(type, { payload: numbersAs(EXAMPLE_PAYLOADS[type], PROBE) });
        events.push(JSON.stringify(e).replaceAll(JSON.stringify(PROBE), text));
      }
    }
    const r = await participant.client.request<{ accepted: number; rejected: unknown[] }>(
      "POST",
      "/api/v1/events",
      { body: `{"session_id":"${participant.sessionId}","events":[${events.join(",")}]}` },
    );
    expect(r.status).toBe(202);
    expect(r.body.accepted + r.body.rejected.length).toBe(events.length);
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 60_000)).toBe(true);
    const [stored] = await app.runtime
      .db("events")
      .where({ session_id: participant.sessionId })
      .count<{ n: string | number }[]>({ n: "*" });
    expect(Number(stored?.n)).toBe(r.body.accepted);
    expect(await app.runtime.db("dead_letters").select("reason")).toEqual([]);
    expect(() => app.runtime.projector.healthcheck()).not.toThrow();
    for (const read of [
      ...["ndjson", "csv", "parquet"].map((format) => `events?format=${format}`),
      "stats",
      "completeness",
    ]) {
      const reply = await admin.download(`/api/v1/admin/experiments/${studyId}/${read}`);
      expect(reply.status, read).toBe(200);
    }
  }, 120_000);

  it("answers 422 naming the field, not a 500, when the audit cursor is past every integer the log holds", async () => {
    const r = await admin.get("/api/v1/admin/audit?before=99999999999999999999");
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("validation_failed");
    expect(detailsOf<{ field: string }>(r)?.field).toBe("before");
  });
});

/** The value with every number in it replaced. */
function numbersAs(value: unknown, replacement: unknown): unknown {
  if (typeof value === "number") return replacement;
  if (Array.isArray(value)) return value.map((v) => numbersAs(v, replacement));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersAs(v, replacement)]));
  return value;
}
