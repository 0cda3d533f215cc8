import { CURRENT_WRITER } from "@feedlab/schemas";
import { readCompacted } from "../kafka-topics.ts";
import {
  type RegistryOptions,
  registrySchemaSource,
  type SchemaSource,
  type StoredSchema,
} from "../writer-schemas.ts";
import type { KafkaClient, KafkaProducer } from "./client/port.ts";
import type { TopicNames } from "./topics.ts";

/**
 * Writers' schemas: published to the compacted `<topic>.schemas` (or a registry); read by fingerprint.
 * `producer` is null on a read-only log, which never publishes.
 */
export function createSchemaSource(
  client: KafkaClient,
  producer: KafkaProducer | null,
  topics: TopicNames,
  registryUrl: string | null | undefined,
): SchemaSource {
  let schemaCache: Map<string, Buffer> | null = null;
  const topicSchemas: SchemaSource = {
    async publish() {
      await (producer as KafkaProducer).send(topics.schemas, [
        {
          key: CURRENT_WRITER.fingerprint,
          value: JSON.stringify({ version: CURRENT_WRITER.version, schema: CURRENT_WRITER.schema }),
        },
      ]);
      return undefined;
    },
    async byFingerprint(fingerprints) {
      if (!schemaCache || fingerprints.some((f) => !schemaCache?.has(f)))
        schemaCache = await readCompacted(client, topics.schemas);
      const out = new Map<string, StoredSchema>();
      for (const f of fingerprints) {
        const v = schemaCache.get(f);
        if (v) out.set(f, JSON.parse(v.toString("utf8")) as StoredSchema);
      }
      return out;
    },
  };
  const registry: RegistryOptions | null = registryUrl
    ? { url: registryUrl, subject: `${topics.events}-value` }
    : null;
  return registry ? registrySchemaSource(registry, topicSchemas) : topicSchemas;
}
