import type { Knex } from "knex";
import type { Logger } from "pino";
import type { KafkaClientName } from "./client/port.ts";

/** What a participant key encrypts on the topic. */
export type Encryption = "fields" | "record";

export interface KafkaLogOptions {
  readonly brokers: readonly string[];
  /** The topic of this contract version (default `feedlab.events.v1`); the dead-letter topic is `<topic>.dlq`. */
  readonly topic: string;
  /** Partitions of a topic this adapter creates (an existing topic keeps its own). */
  readonly partitions: number;
  readonly clientId: string;
  /** The Kafka client the adapter runs on (`FEEDLAB_KAFKA_CLIENT`; default DEFAULT_KAFKA_CLIENT). */
  readonly client?: KafkaClientName;
  readonly logger: Logger;
  /** Longest an append may wait for the brokers before it fails as unavailable. */
  readonly sendTimeoutMs?: number;
  /**
   * The database holding participant keys (`event_log_keys`). Without it the log is read-only: it
   * creates no topic and no producer, and reads keys from the `<topic>.keys` mirror (`feedlab tail`).
   */
  readonly db?: Knex;
  /** `retention.ms` of topics this adapter creates (-1, the default: records are kept forever). */
  readonly retentionMs?: number;
  /** What participant keys encrypt (default `fields`: the values stay readable by standard Avro tools). */
  readonly encryption?: Encryption;
  /** A Confluent-compatible schema registry: values then use the Confluent wire format. */
  readonly registryUrl?: string | null;
}
