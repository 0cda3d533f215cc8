import type { Admin } from "kafkajs";
import { LogUnavailableError } from "../event-log.ts";
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
const KEYS_TOPIC_CONFIG = [
  { name: "cleanup.policy", value: "compact" },
  { name: "segment.ms", value: String(60 * 60 * 1000) },
  { name: "min.cleanable.dirty.ratio", value: "0.01" },
  { name: "delete.retention.ms", value: String(60 * 60 * 1000) },
];

/**
 * Creates the topics that do not exist yet; a read-only log creates none, and fails when there is
 * no events topic to read.
 */
export async function prepareTopics(
  admin: Admin,
  topics: TopicNames,
  options: KafkaLogOptions,
  readOnly: boolean,
): Promise<void> {
  const existing = new Set(await admin.listTopics());
  if (readOnly) {
    if (!existing.has(topics.events))
      throw new LogUnavailableError(
        `There is no topic ${topics.events} on ${options.brokers.join(",")}: nothing has been logged there yet (set FEEDLAB_KAFKA_TOPIC to the topic Feedlab writes).`,
      );
    return;
  }
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic: topics.events,
        numPartitions: options.partitions,
        replicationFactor: -1,
        configEntries: [
          { name: "retention.ms", value: String(options.retentionMs ?? -1) },
          { name: "retention.bytes", value: "-1" },
        ],
      },
      {
        topic: topics.deadLetters,
        numPartitions: 1,
        replicationFactor: -1,
        configEntries: [{ name: "retention.ms", value: "-1" }],
      },
      { topic: topics.keys, numPartitions: 1, replicationFactor: -1, configEntries: KEYS_TOPIC_CONFIG },
      {
        topic: topics.schemas,
        numPartitions: 1,
        replicationFactor: -1,
        configEntries: [{ name: "cleanup.policy", value: "compact" }],
      },
    ].filter((t) => !existing.has(t.topic)),
  });
}
