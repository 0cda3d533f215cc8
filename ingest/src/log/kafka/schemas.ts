import { CURRENT_WRITER } from "@feedlab/schemas";
import type { Admin, Kafka, Producer } from "kafkajs";
import { readCompacted } from "../kafka-topics.ts";
import {
  type RegistryOptions,
  registrySchemaSource,
  type SchemaSource,
  type StoredSchema,
} from "../writer-schemas.ts";
import type { TopicNames } from "./topics.ts";

/**
 * Writers' schemas: published to the compacted `<topic>.schemas` (or a registry); read by fingerprint.
 * `producer` is null on a read-only log, which never publishes.
 */
export function createSchemaSource(
  kafka: Kafka,
  admin: Admin,
  producer: Producer | null,
  topics: TopicNames,
  registryUrl: string | null | undefined,
): SchemaSource {
  let schemaCache: Map<string, Buffer> | null = null;
  const topicSchemas: SchemaSource = {
    async publish() {
      await (producer as Producer).send({
        topic: topics.schemas,
        acks: -1,
        messages: [
          {
            key: CURRENT_WRITER.fingerprint,
            value: JSON.stringify({ version: CURRENT_WRITER.version, schema: CURRENT_WRITER.schema }),
          },
        ],
      });
      return undefined;
    },
    async byFingerprint(fingerprints) {
      if (!schemaCache || fingerprints.some((f) => !schemaCache?.has(f)))
        schemaCache = await readCompacted(kafka, admin, topics.schemas);
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
