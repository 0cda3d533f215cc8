import type { EventLog, Scan, Subscription } from "../event-log.ts";
import { fnv1a, type Placement, partitionOf, retentionOf, retentionProblem } from "../kafka-topics.ts";
import { createWriterResolver } from "../writer-schemas.ts";
import { createKafkaClient } from "./client/index.ts";
import { DEFAULT_KAFKA_CLIENT } from "./client/port.ts";
import type { KafkaLogContext } from "./context.ts";
import { createDeadLetter } from "./dead-letters.ts";
import { createErase } from "./erase.ts";
import { createKafkaKeyring } from "./keys.ts";
import type { KafkaLogOptions } from "./options.ts";
import { placementOf } from "./placement.ts";
import { createRead, firstOffsetsOf, headOf } from "./read.ts";
import { createRecordsOf } from "./records.ts";
import { createScan } from "./scan.ts";
import { createSchemaSource } from "./schemas.ts";
import { createAppend } from "./send.ts";
import { createSubscribe } from "./subscribe.ts";
import { prepareTopics, topicNames } from "./topics.ts";

export type { Encryption, KafkaLogOptions } from "./options.ts";
export { fnv1a, partitionOf };

/**
 * The Kafka adapter of the event log: one topic per contract version, keyed by session id and
 * placed by the Java client's default partitioner, so a session's events stay in order and line up
 * with other topics keyed by session; values are Avro single-object encoded (or in the Confluent wire
 * format with a registry), with the participant's login and payload encrypted under their own key
 * (crypto-shredding, see docs/erasure.md); an idempotent producer waits for all in-sync replicas.
 * It runs on the client `options.client` names (client/: kafkajs or @platformatic/kafka).
 * Appends arriving together go out as one produce request. Offsets are per partition; consumers
 * keep their own checkpoints beside the rows they write.
 *
 * This factory connects and composes the parts, one file each: the topics (topics.ts), participant
 * keys (keys.ts), writers' schemas (schemas.ts), placement (placement.ts), records of fetched
 * messages (records.ts), send, subscribe, scan, read, erase and dead letters.
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<EventLog> {
  const { topic, logger } = options;
  const readOnly = !options.db;
  const sendTimeoutMs = options.sendTimeoutMs ?? 5000;
  const encryption = options.encryption ?? "fields";
  const client = await createKafkaClient(options.client ?? DEFAULT_KAFKA_CLIENT, options);
  const topics = topicNames(topic);
  let partitions: number;
  try {
    await prepareTopics(client, topics, options, readOnly);
    partitions = (await client.partitionCount(topic)) || options.partitions;
  } catch (err) {
    await client.close();
    throw err;
  }
  const producer = readOnly ? null : client.producer();
  const subscriptions = new Set<Subscription>();
  const scans = new Set<Scan>();

  const keyring = createKafkaKeyring(client, producer, topics, options.db);
  const schemas = createSchemaSource(client, producer, topics, options.registryUrl);
  const resolveWriters = createWriterResolver(schemas);
  const ctx: KafkaLogContext = {
    client,
    topic,
    partitions,
    recordsOf: createRecordsOf(keyring, (values) => resolveWriters(values)),
  };
  const scan = createScan(ctx, scans);

  let registryId: number | undefined;
  let placement: Placement = "murmur2";
  try {
    if (options.db) {
      registryId = await schemas.publish();
      placement = await placementOf(options.db, ctx, scan, logger);
      const problem = retentionProblem(topic, await retentionOf(client, topic));
      if (problem) logger.error({ topic }, `EVENTS WILL BE LOST: ${problem}`);
    }
  } catch (err) {
    await client.close();
    throw err;
  }

  return {
    kind: "kafka",
    append: createAppend({
      producer,
      keyring,
      topic,
      partitions,
      placement,
      encryption,
      registryId,
      sendTimeoutMs,
    }),
    subscribe: createSubscribe(ctx, subscriptions),
    position: () => headOf(client, topic),
    read: createRead(client, topic, scan),
    scan: (o) => scan(o),
    firstOffsets: () => firstOffsetsOf(client, topic),
    erase: createErase(keyring, producer, topics.keys),
    deadLetter: createDeadLetter(producer, topics),
    healthcheck: () => client.ping(),
    close: async () => {
      for (const s of [...scans]) await s.stop();
      for (const s of [...subscriptions]) await s.stop();
      await client.close();
    },
  };
}
