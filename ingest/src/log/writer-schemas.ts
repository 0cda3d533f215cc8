import {
  CURRENT_WRITER,
  IncompatibleSchemaError,
  knowsWriterOf,
  registerWriterSchema,
  writerOf,
} from "@feedlab/schemas";
import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import { request } from "undici";

// Where writers publish the Avro schema their records are written with, so that every reader (an
// older release during a rolling upgrade, `feedlab tail`, a data engineer's tool) decodes each
// record with its writer's schema, found by the fingerprint (or registry id) the record carries.

/** A writer's schema as a store keeps it. */
export interface StoredSchema {
  readonly version: number | null;
  readonly schema: unknown;
}

/** The lookups a schema store answers. */
export interface SchemaSource {
  /** Publishes this release's schema; answers its registry id where the store is a registry. */
  publish(): Promise<number | undefined>;
  /** The stored schemas of these fingerprints (those it has). */
  byFingerprint(fingerprints: readonly string[], via?: Knex.Transaction): Promise<Map<string, StoredSchema>>;
  /** The schema a registry gave this id, or null. */
  byRegistryId?(id: number): Promise<StoredSchema | null>;
}

/** How long a fingerprint the store did not have is not asked for again (its records dead-letter meanwhile). */
const MISS_RETRY_MS = 60_000;

/**
 * Registers the writer schemas of these values that this process does not know, from the store.
 * Values whose writer's schema the store does not have, or cannot be read by this release, stay
 * unknown: decoding them fails, and the consumer dead-letters them with the fingerprint.
 */
export function createWriterResolver(source: SchemaSource) {
  const missed = new Map<string, number>();
  const register = (key: string, s: StoredSchema, id?: number) => {
    try {
      registerWriterSchema(s.schema, s.version, id);
    } catch (err) {
      if (!(err instanceof IncompatibleSchemaError)) throw err;
      missed.set(key, Date.now());
    }
  };
  return async function resolve(values: readonly Uint8Array[], via?: Knex.Transaction): Promise<void> {
    const fingerprints = new Set<string>();
    const ids = new Set<number>();
    const now = Date.now();
    for (const v of values) {
      if (knowsWriterOf(v)) continue;
      const ref = writerOf(v);
      if (ref.kind === "raw") continue;
      const key = ref.kind === "fingerprint" ? `f:${ref.fingerprint}` : `r:${ref.id}`;
      if (now - (missed.get(key) ?? 0) < MISS_RETRY_MS) continue;
      if (ref.kind === "fingerprint") fingerprints.add(ref.fingerprint);
      else ids.add(ref.id);
    }
    if (fingerprints.size > 0) {
      const found = await source.byFingerprint([...fingerprints], via);
      for (const fp of fingerprints) {
        const s = found.get(fp);
        if (s) register(`f:${fp}`, s);
        else missed.set(`f:${fp}`, now);
      }
    }
    for (const id of ids) {
      const s = source.byRegistryId ? await source.byRegistryId(id) : null;
      if (s) register(`r:${id}`, s, id);
      else missed.set(`r:${id}`, now);
    }
  };
}

/** The embedded log's schema store: the `event_log_schemas` table beside the log. */
export function tableSchemaSource(db: Knex): SchemaSource {
  return {
    async publish() {
      await db.raw(
        `insert into event_log_schemas (fingerprint, version, schema) values (?, ?, ?::jsonb)
         on conflict (fingerprint) do nothing`,
        [CURRENT_WRITER.fingerprint, CURRENT_WRITER.version, JSON.stringify(CURRENT_WRITER.schema)],
      );
      return undefined;
    },
    async byFingerprint(fingerprints, via) {
      const rows = rowsOf<{ fingerprint: string; version: number | null; schema: unknown }>(
        await (via ?? db).raw(
          "select fingerprint, version, schema from event_log_schemas where fingerprint in (select value from json_array_elements_text(?::json))",
          [JSON.stringify(fingerprints)],
        ),
      );
      return new Map(
        rows.map((r) => [
          r.fingerprint,
          { version: r.version, schema: typeof r.schema === "string" ? JSON.parse(r.schema) : r.schema },
        ]),
      );
    },
  };
}

/** A Confluent-compatible schema registry (Confluent Schema Registry, Apicurio's ccompat API, Karapace). */
export interface RegistryOptions {
  /** Base URL of the Confluent API, e.g. `http://registry:8080/apis/ccompat/v7` for Apicurio. */
  readonly url: string;
  /** The subject the schema is registered under (TopicNameStrategy: `<topic>-value`). */
  readonly subject: string;
}

const REGISTRY_JSON = "application/vnd.schemaregistry.v1+json";

/** A registry that could not be reached or refused the schema. */
class RegistryError extends Error {}

async function registryCall(url: string, init: { method: "GET" | "POST"; body?: string }): Promise<unknown> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: init.method,
      body: init.body,
      headers: { accept: REGISTRY_JSON, ...(init.body ? { "content-type": REGISTRY_JSON } : {}) },
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
  } catch (err) {
    throw new RegistryError(
      `the schema registry at ${new URL(url).origin} is unreachable: ${(err as Error).message}`,
    );
  }
  const text = await res.body.text();
  if (res.statusCode === 404) return null;
  if (res.statusCode >= 300)
    throw new RegistryError(`the schema registry answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/**
 * A schema store in a Confluent-compatible registry: the writer registers its schema under the
 * topic's value subject and writes the Confluent wire format with the id it got; readers fetch
 * unknown ids. Single-object values (written without a registry) are looked up in `fallback`.
 */
export function registrySchemaSource(options: RegistryOptions, fallback: SchemaSource): SchemaSource {
  const base = options.url.replace(/\/+$/, "");
  return {
    async publish() {
      await fallback.publish();
      const body = await registryCall(`${base}/subjects/${encodeURIComponent(options.subject)}/versions`, {
        method: "POST",
        body: JSON.stringify({ schema: JSON.stringify(CURRENT_WRITER.schema) }),
      });
      const id = (body as { id?: unknown } | null)?.id;
      if (typeof id !== "number") throw new RegistryError("the schema registry did not answer a schema id");
      registerWriterSchema(CURRENT_WRITER.schema, CURRENT_WRITER.version, id);
      return id;
    },
    byFingerprint: (fps) => fallback.byFingerprint(fps),
    async byRegistryId(id) {
      const body = (await registryCall(`${base}/schemas/ids/${id}`, { method: "GET" })) as {
        schema?: unknown;
      } | null;
      if (!body || typeof body.schema !== "string") return null;
      return { version: null, schema: JSON.parse(body.schema) };
    },
  };
}
