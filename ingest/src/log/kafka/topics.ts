import { LogUnavailableError } from "../event-log.ts";
import type { KafkaClient, TopicSpec } from "./client/port.ts";
import type { KafkaLogOptions } from "./options.ts";

/** The topics of one contract version: its events and the three beside them. */
export interface TopicNames {
  readonly events: string;
  /** Records a consumer could not apply. */
  readonly deadLetters: string;
  /** The mirror of participant keys (`feedlab tail` reads keys from it). */
  readonly keys: string;
  /** Writers' schemas, by fingerprint. */
  readonly schemas: string;
}

/** `<topic>` and the `.dlq`, `.keys` and `.schemas` topics beside it. */
export const topicNames = (topic: string): TopicNames => ({
  events: topic,
  deadLetters: `${topic}.dlq`,
  keys: `${topic}.keys`,
  schemas: `${topic}.schemas`,
});

/**
 * The keys' mirror topic: compacted, so a destroyed key's record and its tombstone are cleaned away
 * (segments roll hourly; tombstones are dropped an hour after compaction).
 */
const KEYS_TOPIC_CONFIG: Record<string, string> = {
  "cleanup.policy": "compact",
  "segment.ms": String(60 * 60 * 1000),
  "min.cleanable.dirty.ratio": "0.01",
  "delete.retention.ms": String(60 * 60 * 1000),
};

/**
 * Creates the topics that do not exist yet; a read-only log creates none, and fails when there is
 * no events topic to read.
 */
export async function prepareTopics(
  client: KafkaClient,
  topics: TopicNames,
  options: KafkaLogOptions,
  readOnly: boolean,
): Promise<void> {
  const existing = new Set(await client.listTopics());
  if (readOnly) {
    if (!existing.has(topics.events))
      throw new LogUnavailableError(
        `There is no topic ${topics.events} on ${options.brokers.join(",")}: nothing has been logged there yet (set FEEDLAB_KAFKA_TOPIC to the topic Feedlab writes).`,
      );
    return;
  }
  const specs: TopicSpec[] = [
    {
      topic: topics.events,
      partitions: options.partitions,
      configs: { "retention.ms": String(options.retentionMs ?? -1), "retention.bytes": "-1" },
    },
    { topic: topics.deadLetters, partitions: 1, configs: { "retention.ms": "-1" } },
    { topic: topics.keys, partitions: 1, configs: KEYS_TOPIC_CONFIG },
    { topic: topics.schemas, partitions: 1, configs: { "cleanup.policy": "compact" } },
  ];
  await client.createTopics(specs.filter((t) => !existing.has(t.topic)));
}
