import type { Client } from "./app.ts";

/**
 * The served OpenAPI document as the route-walking tests read it (routes.fuzz, numeric-bounds): its
 * operations, and values their schemas accept.
 */

/** A JSON Schema of the document. */
export type Schema = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly schema: Schema;
  /** Required, without a default. */
  readonly required: boolean;
}

/** One operation of the document. */
export interface Operation {
  /** Upper case: `GET`, `POST`, ... */
  readonly method: string;
  /** The path template: `/api/v1/admin/experiments/{id}`. */
  readonly path: string;
  /** Who may call it, from its security requirement. */
  readonly access: "admin" | "participant" | "public";
  /** The schema of its JSON body, or null without one. */
  readonly body: Schema | null;
  readonly query: readonly Parameter[];
  readonly pathParams: readonly Parameter[];
}

export interface OpenApi {
  readonly operations: readonly Operation[];
  /** `#/components/schemas/...`, which `$ref`s point at. */
  readonly components: Readonly<Record<string, Schema>>;
}

interface Document {
  paths: Record<string, Record<string, Schema>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];

/** Fetches `GET /api/v1/openapi.json` and lists its operations. */
export async function loadOpenApi(client: Client): Promise<OpenApi> {
  const doc = (await client.get<Document>("/api/v1/openapi.json")).body;
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!METHODS.includes(method)) continue;
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)
        ?.content;
      const params = ((op.parameters as (Parameter & { in: string })[] | undefined) ?? []).map((p) => ({
        in: p.in,
        name: p.name,
        schema: p.schema,
        required: p.required === true,
      }));
      const schemes = ((op.security as Record<string, unknown>[] | undefined) ?? []).flatMap(Object.keys);
      operations.push({
        method: method.toUpperCase(),
        path,
        access: schemes.includes("adminCookie")
          ? "admin"
          : schemes.includes("participantCookie")
            ? "participant"
            : "public",
        body: content?.["application/json"]?.schema ?? null,
        query: params.filter((p) => p.in === "query"),
        pathParams: params.filter((p) => p.in === "path"),
      });
    }
  }
  return { operations, components: doc.components?.schemas ?? {} };
}

interface SampleOptions {
  /** The share of optional fields included (default one half); 0 leaves every one out. */
  readonly optional?: number;
  /** Appended to texts where it fits, so that names and keys differ from one request to the next. */
  readonly unique?: string;
}

export interface Sampler {
  /** The schema a `$ref` points at; any other schema as it is. */
  resolve(schema: Schema): Schema;
  /**
   * A value the schema accepts, more or less: `r` (in [0, 1)) picks alternatives, enum values, ids
   * and optional fields; `() => 0` with `optional: 0` always gives the same, smallest value.
   */
  sample(schema: Schema, r: () => number, options?: SampleOptions): unknown;
}

const EXAMPLE_URL = "https://example.org/a";
/** Texts tried, in order, for a string with a pattern (a key, a URL, a language tag). */
const PATTERNED = ["aa", EXAMPLE_URL, "/a", "en"];

/**
 * The first text that fits the schema's pattern and length, each tried with `unique` appended
 * first: "a"s as long as needed, then the patterned texts; a URL first for a field named `*url`.
 */
function text(s: Schema, key: string | undefined, unique: string): string {
  const plain = "a".repeat(Math.max(1, Number(s.minLength ?? 1)));
  const candidates = key !== undefined && /url$/i.test(key) ? [EXAMPLE_URL, plain] : [plain];
  const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : null;
  const fits = (t: string) =>
    (pattern?.test(t) ?? true) &&
    t.length >= Number(s.minLength ?? 0) &&
    t.length <= Number(s.maxLength ?? Number.POSITIVE_INFINITY);
  return [...candidates, ...PATTERNED].flatMap((t) => [t + unique, t]).find(fits) ?? plain;
}

/** Samples values of the document's schemas; UUIDs are taken from `ids`. */
export function createSampler(components: Readonly<Record<string, Schema>>, ids: readonly string[]): Sampler {
  const resolve = (s: Schema): Schema => {
    const ref = s.$ref as string | undefined;
    return ref ? (components[ref.replace("#/components/schemas/", "")] ?? {}) : s;
  };

  function sample(
    schema: Schema,
    r: () => number,
    o: Required<SampleOptions>,
    depth: number,
    key?: string,
  ): unknown {
    const s = resolve(schema);
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum)) return s.enum[Math.floor(r() * s.enum.length)];
    const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (alternatives?.length)
      return sample(alternatives[Math.floor(r() * alternatives.length)] as Schema, r, o, depth, key);
    if (Array.isArray(s.allOf))
      return Object.assign({}, ...s.allOf.map((x) => sample(x as Schema, r, o, depth, key)));
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case "string":
        if (s.format === "uuid") return ids[Math.floor(r() * ids.length)];
        if (s.format === "date-time") return new Date(Date.UTC(2026, 10, 25)).toISOString();
        if (s.format === "uri" || s.format === "url") return EXAMPLE_URL;
        return text(s, key, o.unique);
      case "integer":
      case "number":
        return Number(s.minimum ?? 1);
      case "boolean":
        return r() < 0.5;
      case "null":
        return null;
      case "array":
        return depth > 4 ? [] : [sample((s.items as Schema) ?? {}, r, o, depth + 1)];
      case "object": {
        if (depth > 5) return {};
        const props = (s.properties as Record<string, Schema>) ?? {};
        const required = new Set((s.required as string[]) ?? []);
        return Object.fromEntries(
          Object.entries(props)
            .filter(([k]) => required.has(k) || r() < o.optional)
            .map(([k, v]) => [k, sample(v, r, o, depth + 1, k)]),
        );
      }
      default:
        return {};
    }
  }

  return {
    resolve,
    sample: (schema, r, options = {}) =>
      sample(schema, r, { optional: options.optional ?? 0.5, unique: options.unique ?? "" }, 0),
  };
}

/** Percent-encoded; a lone surrogate becomes the bytes of bad UTF-8, which a client may send too. */
export const encodeComponent = (v: string): string => {
  try {
    return encodeURIComponent(v);
  } catch {
    return "%ED%A0%BD";
  }
};

/** The `Cookie` header of a client's cookie jar, for requests sent with `fetch` itself. */
export const cookieHeader = (client: Client): string =>
  [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
