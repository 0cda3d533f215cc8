import type { Logger } from "pino";

/**
 * The Kafka clients the adapter can run on (`FEEDLAB_KAFKA_CLIENT`): kafkajs, and
 * @platformatic/kafka, a maintained client without native code. Both pass the same tests; the README
 * says which is the default and why, with the benchmark's figures.
 */
export const KAFKA_CLIENTS = ["kafkajs", "platformatic"] as const;
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];
/** The client a deployment runs without `FEEDLAB_KAFKA_CLIENT`. */
export const DEFAULT_KAFKA_CLIENT: KafkaClientName = "kafkajs";

/** A fetched record, the same whichever client fetched it. */
export interface FetchedMessage {
  readonly offset: number;
  readonly key: Buffer | null;
  /** Null for a tombstone. */
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** A record to produce; without a partition, the client's default partitioner (murmur2 of the key) places it. */
interface OutgoingMessage {
  readonly partition?: number;
  readonly key: string | null;
  /** Null produces a tombstone. */
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly configs: Readonly<Record<string, string>>;
}

/** A partition's oldest record still held (`low`) and the offset the next record gets (`high`). */
interface PartitionOffsets {
  readonly partition: number;
  readonly low: number;
  readonly high: number;
}

/** What a consumer group's batch handler may do with its batch. */
interface GroupBatch {
  /**
   * False once this member no longer owns the partition (a rebalance gave it away) or the consumer
   * is stopping: the handler stops applying, and another member (or this one, later) gets the rest.
   */
  isCurrent(): boolean;
  /** Commits the group's position after `offset`: everything up to it is applied. */
  commit(offset: number): Promise<void>;
}

interface GroupOptions {
  readonly groupId: string;
  readonly topic: string;
  /** How many partitions are handled at the same time; each partition's batches come in order. */
  readonly concurrency: number;
  /** Handles a batch of one partition; a rejection ends the consumer (`ended` rejects). */
  eachBatch(partition: number, messages: readonly FetchedMessage[], batch: GroupBatch): Promise<void>;
}

/**
 * A running consumer. A partition without a committed offset starts at its oldest record; a committed
 * one resumes after its commit.
 */
export interface GroupMember {
  /** Rejects when the consumer stopped for good (an error it could not retry); the caller may start another. */
  readonly ended: Promise<void>;
  stop(): Promise<void>;
}

interface ReadOptions {
  readonly topic: string;
  /** The first offset read of each partition read; partitions not listed are not read. */
  readonly from: ReadonlyMap<number, number>;
  /** Resolves false when the partition needs no more records. */
  eachBatch(partition: number, messages: readonly FetchedMessage[]): Promise<boolean>;
}

/** A read that commits nothing and leaves no consumer group behind. */
export interface Reading {
  /** Settles when the read stops (`stop`, or every partition answered false); rejects on an error. */
  readonly ended: Promise<void>;
  stop(): Promise<void>;
}

export interface KafkaProducer {
  /** Sends with acks from all in-sync replicas; resolves each partition's base offset. */
  send(topic: string, messages: readonly OutgoingMessage[]): Promise<Map<number, number>>;
}

/**
 * The adapter's port to a Kafka client: exactly what the log needs of one, in its own terms, so the
 * rest of the adapter does not depend on which client runs it.
 */
export interface KafkaClient {
  readonly name: KafkaClientName;
  listTopics(): Promise<string[]>;
  /** Creates the topics (replication: the brokers' default), waiting for their leaders. */
  createTopics(specs: readonly TopicSpec[]): Promise<void>;
  partitionCount(topic: string): Promise<number>;
  /**
   * Offsets per partition. Just after a topic is created the broker asked may not yet lead its
   * partitions: implementations retry that for about two seconds.
   */
  offsets(topic: string): Promise<PartitionOffsets[]>;
  /** The named configuration entries of a topic that the brokers report. */
  topicConfig(topic: string, names: readonly string[]): Promise<Map<string, string>>;
  /** Resolves when the cluster answers. */
  ping(): Promise<void>;
  /** The idempotent producer, connected on first use. */
  producer(): KafkaProducer;
  group(o: GroupOptions): GroupMember;
  read(o: ReadOptions): Reading;
  close(): Promise<void>;
}

export interface KafkaClientOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger: Logger;
}
