import type { KafkaClient } from "./client/port.ts";
import type { RecordsOf } from "./records.ts";

/** What the consuming parts of the Kafka adapter (subscribe, scan, read, placement) share. */
export interface KafkaLogContext {
  readonly client: KafkaClient;
  /** The events topic. */
  readonly topic: string;
  /** Its partitions, as the brokers report them (an existing topic keeps its own count). */
  readonly partitions: number;
  readonly recordsOf: RecordsOf;
}
